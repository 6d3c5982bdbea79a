// A small synchronous client for Redis over Debian's hiredis (0.14): the URL form of --redis,
// one connection with bounded connect and command timeouts, and a pool that fails fast while the
// server is unreachable. What the shared job store (jobs/redis_jobs.h) talks through.
// hiredis 0.14 has no TLS, so rediss:// is refused rather than silently sent in clear text.
// Thread-safety: ParseRedisUrl is pure; a RedisConnection is used by one thread at a time; every
// RedisPool member is safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"

struct redisContext;

namespace ocr::jobs {

struct RedisEndpoint {
  std::string host;
  int port = 6379;
  std::string password;  // empty: no AUTH
  int db = 0;

  // "redis://host:port/db", with the password (if any) shown as "***": for logs, /info, errors.
  std::string Redacted() const;
};

// redis://[:password@]host[:port][/db] (a user name before the colon is refused: Redis 7 ACL users
// need hiredis 1.x's AUTH form). Errors: kInvalidArgument, saying what is wrong without echoing
// the password.
Result<RedisEndpoint> ParseRedisUrl(std::string_view url);

// A reply, copied out of hiredis's tree. Errors from the server are not replies: Command() returns
// them as a Status.
struct RedisReply {
  enum class Type { kNil, kInteger, kString, kStatus, kArray };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  std::string str;  // kString and kStatus
  std::vector<RedisReply> elements;

  bool nil() const { return type == Type::kNil; }
};

class RedisConnection {
 public:
  // Connects, authenticates and selects the database. Errors: kUnavailable (unreachable, refused,
  // timed out, or the server refused AUTH/SELECT: the message says which, never the password).
  static Result<std::unique_ptr<RedisConnection>> Connect(const RedisEndpoint& endpoint,
                                                          std::chrono::milliseconds timeout);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command (binary-safe arguments) and reads its reply. Errors: kUnavailable when the
  // connection failed (it is broken from then on); kResourceExhausted when Redis is full
  // (maxmemory); kInternal for any other error reply (a script's error: the server's message).
  Result<RedisReply> Command(const std::vector<std::string_view>& args);

  // Whether an I/O error broke the connection (it must be dropped).
  bool broken() const { return broken_; }

 private:
  explicit RedisConnection(redisContext* context) : context_(context) {}

  redisContext* context_;
  bool broken_ = false;
};

// Connections to one server, made on demand and reused. After a failed connect, callers get
// kUnavailable at once (no connect attempt) until `retry_after` has passed, so an outage costs
// requests nothing but the answer.
class RedisPool {
 public:
  RedisPool(RedisEndpoint endpoint, std::chrono::milliseconds connect_timeout,
            std::chrono::milliseconds retry_after);
  ~RedisPool();
  RedisPool(const RedisPool&) = delete;
  RedisPool& operator=(const RedisPool&) = delete;

  // Runs one command on a pooled connection. Errors as RedisConnection::Command, and kUnavailable
  // (with the reason of the last failure) while the server is known to be unreachable.
  Result<RedisReply> Command(const std::vector<std::string_view>& args) EXCLUDES(mu_);

  // Whether the last contact with the server succeeded, and why not.
  bool healthy() const EXCLUDES(mu_);
  std::string last_error() const EXCLUDES(mu_);

  const RedisEndpoint& endpoint() const { return endpoint_; }

 private:
  Result<std::unique_ptr<RedisConnection>> Take() EXCLUDES(mu_);
  void Give(std::unique_ptr<RedisConnection> connection) EXCLUDES(mu_);
  // Health changes, logged once each way.
  void MarkUp() EXCLUDES(mu_);
  void MarkDown(const Status& why) EXCLUDES(mu_);

  const RedisEndpoint endpoint_;
  const std::chrono::milliseconds connect_timeout_;
  const std::chrono::milliseconds retry_after_;
  mutable Mutex mu_;  // guards the members below
  std::vector<std::unique_ptr<RedisConnection>> idle_ GUARDED_BY(mu_);
  bool healthy_ GUARDED_BY(mu_) = true;
  std::string last_error_ GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point down_since_ GUARDED_BY(mu_);
};

}  // namespace ocr::jobs
