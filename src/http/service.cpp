#include "http/service.h"

#include <algorithm>
#include <string>
#include <utility>

namespace ocr::http {
namespace {

// What /info reports of the workers, and how many pages of one document may be in flight at once
// (for a request's memory estimate).
ServingFacts FactsOf(const sched::Scheduler& s) {
  ServingFacts facts;
  for (const sched::WorkerGroupPlan& g : s.plan())
    facts.parallel_pages = std::max(facts.parallel_pages, static_cast<int>(g.cpus.size()));
  facts.worker_threads = s.worker_count();
  facts.worker_groups = static_cast<int>(s.plan().size());
  facts.queue_size = s.capacity();
  return facts;
}

}  // namespace

Service::Service(ServerConfig config, sched::Scheduler& scheduler,
                 std::vector<std::vector<const pipeline::Pipeline*>> group_pipelines,
                 std::function<std::size_t()> open_connections)
    : config_(std::move(config)),
      scheduler_(scheduler),
      group_pipelines_(std::move(group_pipelines)),
      memory_budget_(config_.memory_budget_bytes),
      metrics_([this, open = std::move(open_connections)] {
        return Metrics::Gauges{scheduler_.queued(), static_cast<std::size_t>(scheduler_.busy()),
                               open ? open() : 0};
      }),
      local_jobs_(config_.jobs,
                  jobs::PageWorkers{&scheduler_, group_pipelines_,
                                    [this](const document::DocumentPage& p) { RecordPage(p); },
                                    &memory_budget_},
                  scheduler_.worker_count(),
                  // --max-jobs bounds a server's jobs and streams together.
                  [this] { return durable_jobs_ ? durable_jobs_->unfinished() : 0; }) {
  std::vector<std::string> names;
  for (const pipeline::Pipeline* p : group_pipelines_.front())
    names.push_back(p->models().name);
  // Pages read here count in this server's metrics and budget.
  const jobs::PageWorkers workers{&scheduler_, group_pipelines_,
                                  [this](const document::DocumentPage& p) { RecordPage(p); },
                                  &memory_budget_};
  jobs::JobBackend* jobs = &local_jobs_;
  if (config_.redis) {
    shared_jobs_ = std::make_unique<jobs::RedisJobs>(*config_.redis, config_.jobs, workers,
                                                     scheduler_.worker_count(), std::move(names),
                                                     config_.limits);
    jobs = shared_jobs_.get();
  } else if (config_.durable_jobs) {
    durable_jobs_ = std::make_unique<jobs::SqliteJobs>(
        *config_.durable_jobs, config_.jobs, workers, scheduler_.worker_count(), std::move(names),
        config_.limits, [this] { return local_jobs_.unfinished(); });
    jobs = durable_jobs_.get();
  }
  api_ = std::make_unique<const Api>(
      config_, FactsOf(scheduler_), &memory_budget_, group_pipelines_.front(), metrics_,
      Api::State{[this] { return draining_.load(); }, [this] { return scheduler_.full(); }},
      local_jobs_, *jobs);
}

Service::~Service() = default;

std::vector<jobs::JobBackend*> Service::Backends() {
  std::vector<jobs::JobBackend*> backends = {&local_jobs_};
  if (shared_jobs_)
    backends.push_back(shared_jobs_.get());
  if (durable_jobs_)
    backends.push_back(durable_jobs_.get());
  return backends;
}

void Service::RecordPage(const document::DocumentPage& page) {
  if (!page.from_text_layer)
    metrics_.RecordPipeline(page.times, page.lines.size());
  metrics_.RecordPages(1);
}

void Service::Start() {
  if (shared_jobs_)
    shared_jobs_->Start();
  if (durable_jobs_)
    durable_jobs_->Start();
}

void Service::BeginDrain() {
  draining_.store(true);
  for (jobs::JobBackend* backend : Backends())
    backend->StopAdmitting();
}

bool Service::Drained() const {
  return local_jobs_.Idle() && (!shared_jobs_ || shared_jobs_->Idle()) &&
         (!durable_jobs_ || durable_jobs_->Idle());
}

void Service::Abandon() {
  const Status why(StatusCode::kUnavailable,
                   "the server is shutting down; send the document again");
  for (jobs::JobBackend* backend : Backends())
    backend->Abandon(why);
}

void Service::Stop() {
  for (jobs::JobBackend* backend : Backends())
    backend->Abandon(Status(StatusCode::kUnavailable, "the server is shutting down"));
}

void Service::Sweep() {
  local_jobs_.Sweep();
  if (durable_jobs_)
    durable_jobs_->Sweep();
}

}  // namespace ocr::http
