// Debian's redis-server as a child of the test, on an ephemeral loopback port, without
// persistence unless asked: what the shared-jobs tests run against. Stopped (SIGTERM) by Stop()
// or the destructor; Start() again reuses the port, as a restarted Redis would.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace ocr::testing {

inline constexpr const char* kRedisServer = "/usr/bin/redis-server";

// Whether redis-server is installed (scripts/bootstrap installs it with the test tools).
bool HaveRedisServer();

class RedisProcess {
 public:
  // `extra`: more redis-server arguments (e.g. {"--requirepass", "pw"}).
  explicit RedisProcess(std::vector<std::string> extra = {});
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // Starts it and waits (up to 5 s) until it accepts connections; false when it does not.
  bool Start();
  void Stop();

  int port() const { return port_; }

  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_) + "/0"; }

 private:
  std::vector<std::string> extra_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace ocr::testing
