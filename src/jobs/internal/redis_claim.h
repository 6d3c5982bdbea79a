// What RedisJobs' claim loop (jobs/redis_claims.cpp) holds of the pages it claimed: the claims,
// the documents they read, and the inbox where workers leave the pages they read. Shared with
// redis_jobs.cpp, which constructs and destroys them with the store.
// Thread-safety: Inbox is safe from any thread; the rest belongs to the claim loop's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "document/document.h"
#include "jobs/job_spec_codec.h"
#include "jobs/redis_jobs.h"
#include "sched/memory_budget.h"

namespace ocr::jobs {

// A job's document, opened by this replica for the pages it reads of it.
struct RedisJobs::OpenDocument {
  std::string upload;
  SharedJobSpec spec;
  std::size_t pipeline = 0;
  std::unique_ptr<document::PageReader> reader;
  std::optional<sched::MemoryBudget::Lease> upload_lease;  // the upload's bytes, while open
  std::chrono::steady_clock::time_point used;
};

// A page claimed by this replica: the lease it holds, the document it reads, its stop, and the
// memory its reading holds.
struct RedisJobs::Claim {
  std::string member;  // the lease's member in onnxocr:leases
  std::string id;
  std::size_t index = 0;
  std::shared_ptr<OpenDocument> document;
  std::stop_source stop;
  std::optional<sched::MemoryBudget::Lease> page_lease;
};

struct RedisJobs::Completion {
  std::string member;
  Result<document::DocumentPage> page;
  std::chrono::steady_clock::time_point read_at;
};

// Where workers leave the pages they read for the loop to store; held by the pages' callbacks
// too, so a page that returns after the loop stopped touches nothing freed.
struct RedisJobs::Inbox {
  Mutex mu;  // guards the members below
  CondVar wake;
  std::vector<Completion> completions GUARDED_BY(mu);
  bool poke GUARDED_BY(mu) = false;  // a job was submitted, or Stop(): run the loop now

  void Put(Completion c) EXCLUDES(mu) {
    {
      MutexLock lock(&mu);
      completions.push_back(std::move(c));
    }
    wake.Signal();
  }

  void Poke() EXCLUDES(mu) {
    {
      MutexLock lock(&mu);
      poke = true;
    }
    wake.SignalAll();
  }
};

}  // namespace ocr::jobs
