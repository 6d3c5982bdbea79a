// The class behind http/session.h's Connection: one HTTP connection on its strand, its members
// defined in three files by the phase of a request they serve: session_read.cpp (the request
// read: header, 100-continue, body, the answers to what does not parse and to an over-cap
// connection), session_work.cpp (work handed to the scheduler, its deadline and the hang-up
// watch, and its reply or drop coming back), session_write.cpp (the answer written, plain or
// streamed, then the next request or the close); session.cpp the connection's start, drain and
// close and a request's beginning.
// Thread-safety: every member runs on the session's strand, except the Connection calls, which
// post to it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http/api.h"
#include "http/session.h"
#include "http/stream_writer.h"

namespace ocr::http::internal {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;

inline std::string_view Sv(beast::string_view s) {
  return {s.data(), s.size()};
}

class Session final : public Connection, public std::enable_shared_from_this<Session> {
 public:
  // `over_cap`: a connection over --max-connections, which answers only probes (one request, read
  // within kProbeDeadline) and does not count as a live session.
  Session(tcp::socket&& socket, SessionShared& shared, bool over_cap)
      : stream_(std::move(socket)),
        shared_(shared),
        deadline_(stream_.get_executor()),
        over_cap_(over_cap) {
    if (!over_cap_)
      shared_.live_sessions.fetch_add(1);
  }

  ~Session() override {
    if (!over_cap_)
      shared_.live_sessions.fetch_sub(1);
  }

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start() override;
  void RefuseOverCap(bool evicted) override;
  void Drain() override;

 private:
  const ServerConfig& config() const { return shared_.service.config(); }

  // Reading (session_read.cpp).
  void DoRead();
  // Answers what the parser refused, when there is someone to answer, and closes.
  void AnswerUnparsable(beast::error_code ec);
  // The header is in (a Content-Length over the limit already failed with body_limit).
  void OnHeader(beast::error_code ec, std::size_t bytes);
  void OnContinueWritten(beast::error_code ec, std::size_t bytes);
  void ReadBody();
  void OnRead(beast::error_code ec, std::size_t bytes);
  // A connection over --max-connections sent a request header: a probe is answered (and only a
  // probe: no work runs for a connection over the limit), anything else gets 503.
  void AnswerOverCap();

  // Working (session_work.cpp).
  // Hands the work to the scheduler; its reply comes back to this strand unless the deadline
  // answered 504 first (then the work is asked to stop and its late reply is dropped).
  void Enqueue(Work work);
  // A worker's reply to request `generation`; `stopped`: its work was asked to stop.
  void OnWorkDone(std::uint64_t generation, bool stopped, Reply reply);
  // The scheduler dropped request `generation`'s work unrun, for `why`.
  void OnWorkDropped(std::uint64_t generation, StatusCode why);

  // Whether a reply, timer or watch of request `generation` still belongs to the request in
  // flight: it was not answered yet (a 504 or the reply got there first) and no later request
  // replaced it.
  bool IsCurrent(std::uint64_t generation) const {
    return generation == generation_ && busy_ && !answered_;
  }

  void AnswerDeadlineExceeded();
  // While the work runs nobody reads the socket; a client that closes its end (or resets) would
  // otherwise keep a worker busy for nothing. On end of stream the work is asked to stop (as
  // nginx treats a client abort). Bytes of a pipelined request end the watch; they are read
  // after this answer.
  void WatchForHangup(std::uint64_t generation);

  // Writing (session_write.cpp).
  void Send(Reply reply);
  // A streamed answer: the header now, then the stream's pieces as they become ready
  // (StreamWriter). The deadline does not apply: the job behind the stream has its own.
  void SendStream(Reply reply);
  void OnStreamEnd(const StreamWriter::Outcome& outcome, unsigned status, bool keep_alive);
  void OnWrite(beast::error_code ec, std::size_t bytes);
  // Ends the connection after an answer: the write side closes at once (the client sees the end of
  // the answer), and what the client still sends is read and dropped for a moment, so that the
  // kernel does not reset the connection under an answer the client has not read yet. The hang-up
  // watch is cancelled, or it would keep the session alive until the client closes.
  void LingerClose();
  void DoLinger();

  // The connection (session.cpp).
  // A request's answer begins; none when the request did not parse (it is answered as HTTP/1.1).
  void Begin(const Request* req);
  // `why` goes to the debug log: which connections end, and how, when a client reports a reset.
  void Close(std::string_view why);

  beast::tcp_stream stream_;
  SessionShared& shared_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  Response res_;
  std::optional<bhttp::response_serializer<bhttp::string_body>> head_only_;  // a HEAD's answer
  std::vector<char> linger_buffer_;  // LingerClose: what the client still sends, dropped
  std::size_t linger_bytes_ = 0;
  bhttp::response<bhttp::empty_body> continue_;
  std::shared_ptr<StreamWriter> writer_;  // a streamed answer in progress
  // The request being answered (strand only).
  bool busy_ = false;
  bool answered_ = false;         // the current request has its reply (from work or deadline)
  std::uint64_t generation_ = 0;  // which request a worker's reply belongs to
  std::weak_ptr<std::stop_source> stop_;
  net::steady_timer deadline_;  // --request-timeout of the request being answered
  ApiRequest request_;
  std::string route_;
  int lines_ = -1;  // lines found by the request being answered, for the access log
  bool keep_alive_ = true;
  unsigned version_ = 11;
  Clock::time_point received_;
  std::string method_;
  std::string_view method_label_ = "OTHER";  // method_ for the metrics
  std::string path_;
  std::string query_;  // what follows the target's '?'
  std::string request_id_;
  const bool over_cap_;  // over --max-connections: answers one probe, or 503
};

}  // namespace ocr::http::internal
