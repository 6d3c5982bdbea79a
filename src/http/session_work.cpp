// A session's request as work for the scheduler: its deadline, the hang-up watch while it runs,
// and its reply (or its drop) coming back to the strand.
#include <exception>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "http/error_mapping.h"
#include "http/internal/hangup.h"
#include "http/internal/session.h"

namespace ocr::http::internal {

void Session::Enqueue(Work work) {
  const std::uint64_t generation = ++generation_;
  auto stop = std::make_shared<std::stop_source>();
  stop_ = stop;
  sched::Job job;
  job.deadline = received_ + config().request_timeout;
  job.cancel = stop->get_token();  // the deadline answered while the job waited
  job.run = [self = shared_from_this(), work = std::move(work), stop, generation,
             request_id = request_id_](sched::WorkerContext& worker) {
    Reply reply;
    try {
      reply = work(WorkContext{stop->get_token(), self->shared_.service.pipelines(worker.group),
                               &worker.runner});
    } catch (const std::exception& e) {
      spdlog::error("request_id={} unhandled exception in worker: {}", request_id, e.what());
      reply = InternalReply();
    }
    const bool stopped = stop->stop_requested();
    net::post(self->stream_.get_executor(),
              [self, generation, stopped, r = std::move(reply)]() mutable {
                self->OnWorkDone(generation, stopped, std::move(r));
              });
  };
  // Dropped unrun: the deadline passed while the job waited (the scheduler can see that before
  // the deadline timer fires, so either one answers 504), or the client hung up (nobody to
  // answer, so the connection closes).
  job.dropped = [self = shared_from_this(), generation](const Status& why) {
    net::post(self->stream_.get_executor(),
              [self, generation, code = why.code()] { self->OnWorkDropped(generation, code); });
  };
  if (!shared_.service.scheduler().Submit(std::move(job)).ok()) {
    Send(BusyReply());
    return;
  }
  deadline_.expires_at(received_ + config().request_timeout);
  deadline_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
    if (ec || !self->IsCurrent(generation))
      return;
    if (auto source = self->stop_.lock())
      source->request_stop();
    self->AnswerDeadlineExceeded();
  });
  WatchForHangup(generation);
}

void Session::OnWorkDone(std::uint64_t generation, bool stopped, Reply reply) {
  if (!IsCurrent(generation) || stopped) {
    if (reply.stream)
      reply.stream->Abort();  // a stream nobody will read: its pages stop
  }
  if (!IsCurrent(generation))
    return;  // the deadline answered already
  deadline_.cancel();
  if (stopped) {  // the client hung up: nobody to answer
    spdlog::info("request_id={} client closed the connection; work stopped", request_id_);
    Close("client hung up");
    return;
  }
  Send(std::move(reply));
}

void Session::OnWorkDropped(std::uint64_t generation, StatusCode why) {
  if (!IsCurrent(generation))
    return;
  deadline_.cancel();
  if (why == StatusCode::kDeadlineExceeded) {
    AnswerDeadlineExceeded();
    return;
  }
  spdlog::info("request_id={} client closed the connection; work dropped unrun", request_id_);
  Close("client hung up");
}

void Session::AnswerDeadlineExceeded() {
  Send(ErrorReply(504, "deadline_exceeded",
                  "the request took longer than --request-timeout (" +
                      std::to_string(config().request_timeout.count()) +
                      " s); its work was abandoned"));
}

void Session::WatchForHangup(std::uint64_t generation) {
  internal::WatchForHangup(
      stream_, [self = shared_from_this(), generation] { return self->IsCurrent(generation); },
      [self = shared_from_this()] {
        if (auto source = self->stop_.lock())
          source->request_stop();
      });
}

}  // namespace ocr::http::internal
