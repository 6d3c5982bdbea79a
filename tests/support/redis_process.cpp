#include "support/redis_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace ocr::testing {
namespace {

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace

bool HaveRedisServer() {
  return std::filesystem::exists(kRedisServer);
}

RedisProcess::RedisProcess(std::vector<std::string> extra) : extra_(std::move(extra)) {}

RedisProcess::~RedisProcess() {
  Stop();
}

bool RedisProcess::Start() {
  port_ = port_ != 0 ? port_ : FreePort();
  std::vector<std::string> args = {
      kRedisServer,   "--port", std::to_string(port_), "--bind", "127.0.0.1",  "--save", "",
      "--appendonly", "no",     "--daemonize",         "no",     "--loglevel", "warning"};
  args.insert(args.end(), extra_.begin(), extra_.end());
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test
    if (getppid() != parent)
      _exit(127);
    // Its banner and warnings are not the test's output.
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(kRedisServer, argv.data());
    _exit(127);
  }
  for (int i = 0; i < 100; ++i) {
    if (Accepts(port_))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void RedisProcess::Stop() {
  if (pid_ <= 0)
    return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace ocr::testing
