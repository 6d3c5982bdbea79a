#include "http/job_streams.h"

#include <atomic>
#include <ctime>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "http/answer.h"
#include "http/error_mapping.h"
#include "http/response_json.h"

namespace ocr::http {
namespace {

using Json = nlohmann::json;
using jobs::DocumentJob;
using jobs::JobEvent;
using jobs::JobState;

Json Rfc3339(const std::optional<std::chrono::system_clock::time_point>& t) {
  if (!t)
    return nullptr;
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  return std::string(text, n) + "." + std::to_string(1000 + ms % 1000).substr(1) + "Z";
}

std::string JobPath(const jobs::JobView& job) {
  return "/jobs/" + job.id();
}

// What both streams share: the job, the reader's cursor into its log, and the watch.
class JobStreamBase : public ReplyStream {
 public:
  JobStreamBase(std::shared_ptr<jobs::JobView> job, std::size_t cursor)
      : job_(std::move(job)), cursor_(cursor) {}

  ~JobStreamBase() override { Unwatch(); }

  JobStreamBase(const JobStreamBase&) = delete;
  JobStreamBase& operator=(const JobStreamBase&) = delete;

  void Start(std::function<void()> wake) override { watch_.store(job_->Watch(std::move(wake))); }

  Piece Next() override {
    Piece piece;
    for (const JobEvent& event : job_->EventsSince(cursor_)) {
      ++cursor_;
      piece.bytes += Render(event, cursor_);
      if (event.kind == JobEvent::Kind::kEnd) {
        piece.last = true;
        Unwatch();
        break;
      }
    }
    return piece;
  }

 protected:
  // The bytes of `event`, the `id`-th of the log (from 1).
  virtual std::string Render(const JobEvent& event, std::size_t id) = 0;

  void Unwatch() {
    if (const std::uint64_t handle = watch_.exchange(0); handle != 0)
      job_->Unwatch(handle);
  }

  std::shared_ptr<jobs::JobView> job_;

 private:
  std::size_t cursor_;
  std::atomic<std::uint64_t> watch_{0};
};

class NdjsonStream final : public JobStreamBase {
 public:
  explicit NdjsonStream(std::shared_ptr<DocumentJob> job)
      : JobStreamBase(job, 0), document_job_(std::move(job)) {}

  // The job exists only for this stream's client: without the stream nobody reads it.
  ~NdjsonStream() override { CancelJob(); }

  NdjsonStream(const NdjsonStream&) = delete;
  NdjsonStream& operator=(const NdjsonStream&) = delete;

  void Abort() override { CancelJob(); }

 private:
  void CancelJob() {
    Unwatch();
    document_job_->Cancel(Status(StatusCode::kCancelled, "the client closed the connection"));
  }

  std::string Render(const JobEvent& event, std::size_t /*id*/) override {
    const bool words = job_->list_words();
    switch (event.kind) {
      case JobEvent::Kind::kProgress:
        return {};
      case JobEvent::Kind::kPage:
        return DumpJson(PageJson(job_->page(event.index), words)) + "\n";
      case JobEvent::Kind::kEnd:
        break;
    }
    const jobs::JobSnapshot snap = job_->Snapshot();
    if (snap.state == JobState::kSucceeded) {
      const jobs::JobSpec& spec = document_job_->spec();
      return AnswerSummaryLine(document_job_->result(), spec.answer, document_job_->seconds());
    }
    return JobErrorReply(snap.error).body + "\n";
  }

  std::shared_ptr<DocumentJob> document_job_;
};

class EventStream final : public JobStreamBase {
 public:
  EventStream(std::shared_ptr<jobs::JobView> job, std::size_t last_event_id)
      : JobStreamBase(std::move(job), last_event_id) {}

  Piece Next() override {
    Piece piece = JobStreamBase::Next();
    if (!started_) {
      // How long a browser waits before reconnecting after a dropped connection.
      piece.bytes = "retry: 2000\n\n" + piece.bytes;
      started_ = true;
    }
    return piece;
  }

  std::string Heartbeat() override { return ": keep-alive\n\n"; }

  void Abort() override { Unwatch(); }

 private:
  std::string Render(const JobEvent& event, std::size_t id) override {
    std::string name;
    Json data;
    switch (event.kind) {
      case JobEvent::Kind::kProgress:
        name = "progress";
        data = {{"pages_done", event.pages_done}, {"page_count", job_->Snapshot().pages_total}};
        break;
      case JobEvent::Kind::kPage: {
        name = "page";
        data = {{"index", event.index}};
        data.update(PageJson(job_->page(event.index), job_->list_words()));
        break;
      }
      case JobEvent::Kind::kEnd: {
        const jobs::JobSnapshot snap = job_->Snapshot();
        name = snap.state == JobState::kSucceeded   ? "done"
               : snap.state == JobState::kCancelled ? "cancelled"
                                                    : "failed";
        if (snap.state == JobState::kFailed) {
          data = Json::parse(JobErrorReply(snap.error).body);
        } else {
          data = {{"id", job_->id()}, {"status", jobs::StateName(snap.state)}};
          if (snap.state == JobState::kSucceeded)
            data["result_url"] = JobPath(*job_) + "/result";
        }
        break;
      }
    }
    return "id: " + std::to_string(id) + "\nevent: " + name + "\ndata: " + DumpJson(data) + "\n\n";
  }

  bool started_ = false;
};

}  // namespace

Json JobStatusJson(const std::string& id, const jobs::JobSnapshot& snap) {
  Json error = nullptr;
  Json error_code = nullptr;
  if (snap.state == JobState::kCancelled) {
    error = snap.error.message();
  } else if (!snap.error.ok()) {
    const Json body = Json::parse(JobErrorReply(snap.error).body);
    error = body["error"];
    error_code = body["code"];
  }
  return {{"id", id},
          {"status", jobs::StateName(snap.state)},
          {"page_count", snap.pages_total},
          {"pages_done", snap.pages_done},
          {"created_at", Rfc3339(snap.created)},
          {"started_at", Rfc3339(snap.started)},
          {"finished_at", Rfc3339(snap.finished)},
          {"error", error},
          {"error_code", error_code}};
}

Reply JobErrorReply(const Status& error) {
  if (error.code() == StatusCode::kCancelled)
    return ErrorReply(409, "job_not_finished", "the job was cancelled (" + error.message() + ")");
  return StatusReply(error);
}

std::shared_ptr<ReplyStream> MakeNdjsonStream(std::shared_ptr<DocumentJob> job) {
  return std::make_shared<NdjsonStream>(std::move(job));
}

std::shared_ptr<ReplyStream> MakeEventStream(std::shared_ptr<jobs::JobView> job,
                                             std::size_t last_event_id) {
  return std::make_shared<EventStream>(std::move(job), last_event_id);
}

}  // namespace ocr::http
