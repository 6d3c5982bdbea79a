// The HTTP API under fuzz, shared by json_fuzz and http_fuzz: the default model set
// (models/ppocrv4) loaded once per fuzz process, the server's Service (http/service.h, assembled
// as `serve` assembles it) over it with small limits, and the checks every reply must pass
// whatever the request was.
// Thread-safety: none needed (libFuzzer runs one input at a time on one thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/task_runner.h"
#include "engine/ort_model.h"
#include "fuzz_support.h"
#include "http/api.h"
#include "http/service.h"
#include "jobs/local_jobs.h"
#include "pipeline/model_set.h"
#include "pipeline/pipeline.h"
#include "sched/memory_budget.h"
#include "sched/scheduler.h"

namespace ocr::fuzz {

// Small limits keep the work of one input short: an accepted image has at most 256 x 256
// pixels, a PDF at most 2 pages rendered at 18 dpi (an A4 page is 149 x 211 pixels). The memory
// budget is large enough for anything those limits let through, so every document's estimate is
// computed from its hostile header and OCR still runs. A finished job expires at once, so the
// budget is whole again after each input.
inline http::ServerConfig FuzzServerConfig() {
  http::ServerConfig config;
  config.limits.max_image_pixels = 256 * 256;
  config.limits.max_pages = 2;
  config.limits.pdf_dpi = 18;
  config.memory_budget_bytes = std::int64_t{4} << 30;
  config.jobs.ttl = std::chrono::seconds(0);
  return config;
}

// The service over the default set (one worker group of one background worker, for jobs and
// streams), that set as its group holds it, and the parts the checks look at. Loads on first use
// and lives until the process exits; aborts if the set does not load (scripts/bootstrap
// installs it).
struct FuzzApi {
  const http::Api& api;
  std::span<const pipeline::Pipeline* const> pipelines;
  const sched::MemoryBudget& budget;
  jobs::LocalJobs& jobs;  // jobs and streams
};

inline FuzzApi SharedApi() {
  struct Loaded {
    engine::Runtime runtime;
    std::unique_ptr<pipeline::ModelSet> models;
    std::unique_ptr<pipeline::Pipeline> pipeline;
    std::unique_ptr<sched::Scheduler> scheduler;
    std::unique_ptr<http::Service> service;
  };

  static Loaded* loaded = [] {
    spdlog::set_level(spdlog::level::off);  // a log line per bad input would drown the fuzzer
    auto* l = new Loaded();
    auto set = pipeline::LoadModelSet(l->runtime, "ppocrv4", OCR_FUZZ_MODEL_DIR, {});
    if (!set.ok()) {
      std::fprintf(stderr, "cannot load %s: %s\n", OCR_FUZZ_MODEL_DIR,
                   set.status().ToString().c_str());
      std::abort();
    }
    l->models = std::move(set).value();
    l->pipeline = std::make_unique<pipeline::Pipeline>(*l->models);
    auto scheduler = sched::Scheduler::Start({sched::WorkerGroupPlan{0, {-1}}},
                                             sched::SchedulerConfig{8, /*pin_threads=*/false});
    OCR_FUZZ_CHECK(scheduler.ok());
    l->scheduler = std::move(scheduler).value();
    l->service = std::make_unique<http::Service>(
        FuzzServerConfig(), *l->scheduler,
        std::vector<std::vector<const pipeline::Pipeline*>>{{l->pipeline.get()}});
    return l;
  }();
  http::Service& service = *loaded->service;
  return {service.api(), service.pipelines(0), service.memory_budget(), service.local_jobs()};
}

// Runs a route's work to completion on this thread, as a worker would whose deadline never
// passes.
inline http::Reply RunWork(const FuzzApi& fuzz_api, const http::Work& work) {
  InlineTaskRunner runner;
  return work(http::WorkContext{std::stop_token(), fuzz_api.pipelines, &runner});
}

// Ends what an input started: a streamed reply's job is cancelled as when its client leaves,
// every job is cancelled and freed, and the memory they reserved must all come back.
inline void FinishJobs(const FuzzApi& fuzz_api, http::Reply& reply) {
  if (reply.stream) {
    reply.stream->Start([] {});
    reply.stream->Abort();
    reply.stream.reset();
  }
  fuzz_api.jobs.Abandon(Status(StatusCode::kCancelled, "end of the fuzz input"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (fuzz_api.jobs.unfinished() > 0 || fuzz_api.budget.reserved() > 0) {
    OCR_FUZZ_CHECK(std::chrono::steady_clock::now() < deadline);
    fuzz_api.jobs.Sweep();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  fuzz_api.jobs.Sweep();
}

// What holds for every reply: a status the API uses (never 500, which would be a bug since no
// client input may cause one); errors in the JSON error shape of spec/API.md section 3
// ({"success": false, "error": "<message>", "code": "<code>"}); JSON
// bodies that parse; 405 with its Allow header.
inline bool ReplyIsWellFormed(const http::Reply& reply) {
  if (reply.status < 200 || reply.status > 504 || reply.status == 500)
    return false;
  if (reply.status == 405 && reply.allow.empty())
    return false;
  if (reply.content_type != "application/json")
    return reply.status < 400;
  const nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
  if (!body.is_object())
    return false;
  if (reply.status < 400)
    return true;
  const auto error = body.find("error");
  const auto code = body.find("code");
  return body.value("success", true) == false && error != body.end() && error->is_string() &&
         !error->get<std::string>().empty() && code != body.end() && code->is_string() &&
         !code->get<std::string>().empty();
}

inline void CheckReply(const http::Reply& reply) {
  if (!ReplyIsWellFormed(reply)) {
    std::fprintf(stderr, "malformed reply: %u %s\n%s\n", reply.status, reply.content_type.c_str(),
                 reply.body.c_str());
    CheckFailed("ReplyIsWellFormed(reply)", __FILE__, __LINE__);
  }
}

}  // namespace ocr::fuzz
