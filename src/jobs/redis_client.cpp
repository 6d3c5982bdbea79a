#include "jobs/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <charconv>

#include <spdlog/spdlog.h>

namespace ocr::jobs {
namespace {

// A command that hangs this long means the server or the network is gone.
constexpr std::chrono::seconds kCommandTimeout{5};

timeval ToTimeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

Result<int> ParseNumber(std::string_view text, int low, int high, std::string_view what) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low ||
      value > high) {
    return InvalidArgument("--redis: the " + std::string(what) + " must be a number in [" +
                           std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return value;
}

RedisReply Copy(const redisReply& r) {
  RedisReply out;
  switch (r.type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = r.integer;
      break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      out.type =
          r.type == REDIS_REPLY_STRING ? RedisReply::Type::kString : RedisReply::Type::kStatus;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      out.elements.reserve(r.elements);
      for (size_t i = 0; i < r.elements; ++i)
        out.elements.push_back(Copy(*r.element[i]));
      break;
    default:
      break;  // nil
  }
  return out;
}

}  // namespace

std::string RedisEndpoint::Redacted() const {
  return "redis://" + std::string(password.empty() ? "" : ":***@") + host + ":" +
         std::to_string(port) + "/" + std::to_string(db);
}

Result<RedisEndpoint> ParseRedisUrl(std::string_view url) {
  if (url.starts_with("rediss://")) {
    return InvalidArgument(
        "--redis: rediss:// (TLS) is not supported: the server's Redis client (Debian's hiredis "
        "0.14) has no TLS; reach Redis over a private network or a TLS tunnel (stunnel) with "
        "redis://");
  }
  constexpr std::string_view kScheme = "redis://";
  if (!url.starts_with(kScheme))
    return InvalidArgument(
        "--redis: the URL must start with redis:// (redis://[:password@]host"
        "[:port][/db])");
  std::string_view rest = url.substr(kScheme.size());
  RedisEndpoint endpoint;
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    if (!userinfo.starts_with(':'))
      return InvalidArgument(
          "--redis: give the password as redis://:password@host (Redis ACL "
          "user names are not supported)");
    endpoint.password = std::string(userinfo.substr(1));
    if (endpoint.password.empty())
      return InvalidArgument("--redis: the password after ':' is empty");
    rest = rest.substr(at + 1);
  }
  std::string_view hostport = rest;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    hostport = rest.substr(0, slash);
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty()) {
      OCR_ASSIGN_OR_RETURN(endpoint.db, ParseNumber(db, 0, 1 << 20, "database number"));
    }
  }
  if (hostport.find_first_of("?#") != std::string_view::npos)
    return InvalidArgument("--redis: query strings and fragments are not supported");
  std::string_view host = hostport;
  if (hostport.starts_with('[')) {  // [IPv6]:port
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos)
      return InvalidArgument("--redis: an IPv6 address needs its closing ']'");
    host = hostport.substr(1, close - 1);
    const std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (!after.starts_with(':'))
        return InvalidArgument("--redis: expected ':port' after the IPv6 address");
      OCR_ASSIGN_OR_RETURN(endpoint.port, ParseNumber(after.substr(1), 1, 65535, "port"));
    }
  } else if (const size_t colon = hostport.rfind(':'); colon != std::string_view::npos) {
    host = hostport.substr(0, colon);
    OCR_ASSIGN_OR_RETURN(endpoint.port, ParseNumber(hostport.substr(colon + 1), 1, 65535, "port"));
  }
  if (host.empty())
    return InvalidArgument("--redis: the URL has no host (redis://[:password@]host[:port][/db])");
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == ':';
    if (!ok)
      return InvalidArgument(
          "--redis: the host may hold only letters, digits, '.', '-', '_' "
          "and ':' (IPv6)");
  }
  endpoint.host = std::string(host);
  return endpoint;
}

Result<std::unique_ptr<RedisConnection>> RedisConnection::Connect(
    const RedisEndpoint& endpoint, std::chrono::milliseconds timeout) {
  redisContext* context =
      redisConnectWithTimeout(endpoint.host.c_str(), endpoint.port, ToTimeval(timeout));
  if (context == nullptr)
    return Status(StatusCode::kUnavailable, "Redis: out of memory allocating a connection");
  std::unique_ptr<RedisConnection> connection(new RedisConnection(context));
  if (context->err != 0) {
    return Status(StatusCode::kUnavailable, "Redis at " + endpoint.Redacted() +
                                                " is unreachable: " + std::string(context->errstr));
  }
  redisSetTimeout(context, ToTimeval(kCommandTimeout));
  redisEnableKeepAlive(context);
  auto fail = [&](std::string_view what, const Status& why) {
    return Status(StatusCode::kUnavailable, "Redis at " + endpoint.Redacted() + " refused " +
                                                std::string(what) + ": " + why.message());
  };
  if (!endpoint.password.empty()) {
    if (auto r = connection->Command({"AUTH", endpoint.password}); !r.ok())
      return fail("the password", r.status());
  }
  if (endpoint.db != 0) {
    const std::string db = std::to_string(endpoint.db);
    if (auto r = connection->Command({"SELECT", db}); !r.ok())
      return fail("SELECT " + db, r.status());
  }
  return connection;
}

RedisConnection::~RedisConnection() {
  redisFree(context_);
}

Result<RedisReply> RedisConnection::Command(const std::vector<std::string_view>& args) {
  if (broken_)
    return Status(StatusCode::kUnavailable, "the Redis connection is broken");
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  if (reply == nullptr) {
    broken_ = true;
    return Status(StatusCode::kUnavailable,
                  "the connection failed: " + std::string(context_->errstr));
  }
  std::unique_ptr<redisReply, void (*)(void*)> owned(reply, freeReplyObject);
  if (reply->type == REDIS_REPLY_ERROR) {
    const std::string error(reply->str, reply->len);
    // Under maxmemory with noeviction, writes fail with OOM: full, not broken (503, retry).
    if (error.starts_with("OOM") || error.find(" OOM ") != std::string::npos)
      return Status(StatusCode::kResourceExhausted,
                    "Redis is full (maxmemory); retry when jobs have expired");
    return Status(StatusCode::kInternal, "Redis: " + error);
  }
  return Copy(*reply);
}

RedisPool::RedisPool(RedisEndpoint endpoint, std::chrono::milliseconds connect_timeout,
                     std::chrono::milliseconds retry_after)
    : endpoint_(std::move(endpoint)),
      connect_timeout_(connect_timeout),
      retry_after_(retry_after) {}

RedisPool::~RedisPool() = default;

Result<RedisReply> RedisPool::Command(const std::vector<std::string_view>& args) {
  OCR_ASSIGN_OR_RETURN(std::unique_ptr<RedisConnection> connection, Take());
  Result<RedisReply> reply = connection->Command(args);
  if (connection->broken()) {
    const Status down(StatusCode::kUnavailable,
                      "Redis at " + endpoint_.Redacted() + ": " + reply.status().message());
    MarkDown(down);
    return down;
  }
  Give(std::move(connection));
  return reply;
}

Result<std::unique_ptr<RedisConnection>> RedisPool::Take() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<RedisConnection> c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!healthy_ && now - down_since_ < retry_after_)
      return Status(StatusCode::kUnavailable, last_error_);
    if (!healthy_)
      down_since_ = now;  // this caller tries; the others keep failing fast meanwhile
  }
  auto connection = RedisConnection::Connect(endpoint_, connect_timeout_);
  if (!connection.ok()) {
    MarkDown(connection.status());
    return connection.status();
  }
  MarkUp();
  return connection;
}

void RedisPool::Give(std::unique_ptr<RedisConnection> connection) {
  MutexLock lock(&mu_);
  idle_.push_back(std::move(connection));
}

void RedisPool::MarkUp() {
  MutexLock lock(&mu_);
  if (!healthy_)
    spdlog::info("Redis at {} is reachable again", endpoint_.Redacted());
  healthy_ = true;
}

void RedisPool::MarkDown(const Status& why) {
  MutexLock lock(&mu_);
  if (healthy_)
    spdlog::warn("{}; job routes answer 503 until it is back", why.message());
  healthy_ = false;
  last_error_ = why.message();
  down_since_ = std::chrono::steady_clock::now();
  idle_.clear();  // they share the failed server; a restarted one needs new connections anyway
}

bool RedisPool::healthy() const {
  MutexLock lock(&mu_);
  return healthy_;
}

std::string RedisPool::last_error() const {
  MutexLock lock(&mu_);
  return last_error_;
}

}  // namespace ocr::jobs
