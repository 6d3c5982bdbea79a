// Test helpers for the HTTP server tests: the onnxocr binary running `serve` as a child process
// on an ephemeral 127.0.0.1 port, and a small synchronous Beast client.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_paths.h"

namespace ocr::http::testing_support {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Json = nlohmann::json;
using Response = bhttp::response<bhttp::string_body>;
using Request = bhttp::request<bhttp::string_body>;

// ---------------------------------------------------------------------------------------------
// Helpers.

inline std::string EncodeBase64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const std::uint32_t v =
        (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8) | std::uint8_t(in[i + 2]);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63],
            kAlphabet[v & 63]};
  }
  if (i + 1 == in.size()) {
    const std::uint32_t v = std::uint8_t(in[i]) << 16;
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const std::uint32_t v = (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

inline std::uint32_t Crc32(std::string_view data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const char ch : data) {
    crc ^= std::uint8_t(ch);
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

inline void PutBe32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(char((v >> shift) & 0xFF));
}

inline std::string PngChunk(std::string_view type, std::string_view data) {
  std::string chunk;
  PutBe32(chunk, static_cast<std::uint32_t>(data.size()));
  std::string body(type);
  body += data;
  chunk += body;
  PutBe32(chunk, Crc32(body));
  return chunk;
}

// A PNG whose header declares width x height (8-bit RGB) and that has no pixel data.
inline std::string PngHeaderOnly(std::uint32_t width, std::uint32_t height) {
  std::string png("\x89PNG\r\n\x1a\n", 8);
  std::string ihdr;
  PutBe32(ihdr, width);
  PutBe32(ihdr, height);
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);
  png += PngChunk("IHDR", ihdr);
  png += PngChunk("IEND", "");
  return png;
}

// The onnxocr binary running `serve` as a child; its stdout and stderr are collected on a thread.
// The child leads its own process group (anything it spawns, such as a sanitizer's symbolizer, is
// killed with it) and dies with the test: it gets SIGKILL when the thread that started it exits,
// however the test ends (crash, sanitizer abort, ctest's timeout). It never holds the test's own
// stdout, so an orphan cannot keep ctest waiting for the end of the output.
// REQUIRES: Start() is called on the thread that outlives the server (the test's main thread).
class ServerProcess {
 public:
  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  ~ServerProcess() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (reader_.joinable())
      reader_.join();
    if (!data_dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(data_dir_, ignored);
    }
  }

  // Starts the server and waits (up to 60 s) for "listening on HOST:PORT".
  ::testing::AssertionResult Start(const std::vector<std::string>& extra_args) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      return ::testing::AssertionFailure() << "pipe failed";
    std::vector<std::string> args = {
        OCR_ONNXOCR_BINARY, "serve", "--host",   "127.0.0.1",
        "--port",           "0",     "--models", "ppocrv4=" + testing::DefaultModelDir().string()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    // Its own job folder (one server per --data-dir), unless the test chose where jobs live.
    const bool chosen = std::ranges::any_of(extra_args, [](const std::string& a) {
      return a == "--data-dir" || a == "--jobs" || a == "--redis";
    });
    if (!chosen) {
      char pattern[] = "/tmp/onnxocr-server-data-XXXXXX";
      if (data_dir_.empty() && mkdtemp(pattern) != nullptr)
        data_dir_ = pattern;
      if (data_dir_.empty())
        return ::testing::AssertionFailure() << "mkdtemp failed";
      args.insert(args.end(), {"--data-dir", data_dir_});
    }
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      // The test may have died before the death signal was armed.
      if (getppid() != parent)
        _exit(127);
      // The copies do not inherit close-on-exec; the pipe's own descriptors close at exec.
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      for (const char* name : {"ONNXOCR_MODELS", "ONNXOCR_PORT", "ONNXOCR_HOST", "ONNXOCR_THREADS",
                               "ONNXOCR_QUEUE_SIZE", "ONNXOCR_MAX_BODY_MB"}) {
        unsetenv(name);
      }
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
    if (pid_ < 0)
      return ::testing::AssertionFailure() << "fork failed";
    setpgid(pid_, pid_);  // also here, so the group exists before any kill(-pid_) below

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string seen;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0)
        continue;
      char buf[4096];
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0)
        break;
      seen.append(buf, static_cast<size_t>(n));
      const size_t at = seen.find("listening on ");
      const size_t eol = at == std::string::npos ? at : seen.find('\n', at);
      if (eol != std::string::npos) {
        const std::string line = seen.substr(at, eol - at);
        port_ = static_cast<unsigned short>(std::stoi(line.substr(line.rfind(':') + 1)));
        {
          std::lock_guard lock(mu_);
          log_ = seen;
        }
        reader_ = std::thread([this] { ReadRest(); });
        return ::testing::AssertionSuccess();
      }
    }
    return ::testing::AssertionFailure() << "server did not report its port; stderr:\n" << seen;
  }

  unsigned short port() const { return port_; }

  // SIGTERM, then waits up to `wait` for the exit; returns the exit code (-1: killed/timeout).
  int Stop(std::chrono::seconds wait = std::chrono::seconds(40)) {
    if (pid_ <= 0)
      return -1;
    kill(pid_, SIGTERM);
    return Wait(wait);
  }

  void Signal(int signo) const { kill(pid_, signo); }

  // Waits up to `wait` for the exit (then kills the group); returns the exit code, -1 when killed
  // by a signal or after `wait`. Any other exit than 0 prints the end of the server's output,
  // where a sanitizer's report on the child would be.
  int Wait(std::chrono::seconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    int status = 0;
    bool timed_out = false;
    while (waitpid(pid_, &status, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(-pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    if (reader_.joinable())
      reader_.join();
    const int code = !timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0) {
      const std::string output = log();
      std::fprintf(stderr, "onnxocr serve exited with %d%s; the end of its output:\n%s\n", code,
                   timed_out ? " (killed after the wait)" : "",
                   output.substr(output.size() - std::min<size_t>(output.size(), 16384)).c_str());
    }
    return code;
  }

  std::string log() {
    std::lock_guard lock(mu_);
    return log_;
  }

 private:
  void ReadRest() {
    char buf[4096];
    ssize_t n;
    while ((n = read(fd_, buf, sizeof buf)) > 0) {
      std::lock_guard lock(mu_);
      log_.append(buf, static_cast<size_t>(n));
    }
    close(fd_);
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  std::string data_dir_;  // the job folder this object made (kept across restarts)
  unsigned short port_ = 0;
  std::thread reader_;
  std::mutex mu_;
  std::string log_;
};

inline tcp::socket Connect(net::io_context& ioc, unsigned short port) {
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  return socket;
}

inline Request MakeRequest(bhttp::verb method, std::string target, std::string body = {},
                           std::string content_type = "application/json") {
  Request req(method, target, 11);
  req.set(bhttp::field::host, "127.0.0.1");
  if (!body.empty() || method == bhttp::verb::post) {
    req.set(bhttp::field::content_type, content_type);
    req.body() = std::move(body);
  }
  req.prepare_payload();
  return req;
}

inline Response Exchange(tcp::socket& socket, Request req) {
  bhttp::write(socket, req);
  beast::flat_buffer buffer;
  Response res;
  bhttp::read(socket, buffer, res);
  return res;
}

inline Response Send(unsigned short port, Request req) {
  net::io_context ioc;
  tcp::socket socket = Connect(ioc, port);
  return Exchange(socket, std::move(req));
}

inline Json BodyJson(const Response& res) {
  return Json::parse(res.body(), nullptr, false);
}

// The code of an error answer in the shape of spec/API.md: {"success": false, "error": "<message>",
// "code": "<code>"} and nothing else; anything else comes back as a description that no test
// expects.
inline std::string ErrorCodeOf(const Response& res) {
  const Json j = BodyJson(res);
  if (!j.is_object() || j.size() != 3 || j.value("success", true) || !j["error"].is_string() ||
      j["error"].get<std::string>().empty() || !j["code"].is_string()) {
    return "<not an error answer: " + res.body() + ">";
  }
  return j["code"];
}

inline std::string WithoutSpaces(std::string s) {
  std::erase(s, ' ');
  return s;
}

inline std::string OcrBody(const std::string& png_bytes) {
  return Json{{"image", EncodeBase64(png_bytes)}}.dump();
}

struct FormField {
  std::string name;
  std::string value;
  std::string filename = {};  // set for file parts
};

inline Request FormRequest(const std::vector<FormField>& fields, std::string target = "/ocr") {
  const std::string boundary = "----onnxocrTestBoundary7MA4YWxk";
  std::string body;
  for (const auto& f : fields) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + f.name + "\"";
    if (!f.filename.empty()) {
      body += "; filename=\"" + f.filename + "\"\r\nContent-Type: application/octet-stream";
    }
    body += "\r\n\r\n" + f.value + "\r\n";
  }
  body += "--" + boundary + "--\r\n";
  return MakeRequest(bhttp::verb::post, std::move(target), std::move(body),
                     "multipart/form-data; boundary=" + boundary);
}

inline std::string Header(const Response& res, std::string_view name) {
  const auto it = res.find(beast::string_view(name.data(), name.size()));
  return it == res.end() ? std::string() : std::string(it->value());
}

}  // namespace ocr::http::testing_support
