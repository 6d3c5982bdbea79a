#include "cli/bench_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cli/bench_harness.h"
#include "cli/bench_workload.h"
#include "cli/exit_codes.h"
#include "common/clock.h"
#include "common/text.h"
#include "image/decode.h"
#include "layout/layout.h"

namespace ocr::cli {

CLI::App* AddBenchCommand(CLI::App& app, BenchOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Measure throughput, latency, stage times and pipeline efficiency in-process");
  AddInputFlags(*cmd, o.input, document::kServerFlag);
  AddWorkerFlags(*cmd, o.workers);
  cmd->add_option("--images", o.images, "Folder of images to OCR (JPEG, PNG, WebP, BMP, TIFF)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--concurrency", o.concurrency, "Client threads per level, e.g. 1,2,4")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096))
      ->default_str("1,2,4");
  cmd->add_option("--duration", o.duration_s, "Seconds per level")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  cmd->add_option("--requests", o.requests, "Requests per level instead of a duration")
      ->check(CLI::Range(0, 100'000'000));
  cmd->add_flag("--vary-sizes", o.vary_sizes,
                "Rescale each request's image (0.5x to 1.5x) to churn input shapes");
  cmd->add_flag("--baseline", o.baseline,
                "Also measure the simple design: one request at a time, ONNX Runtime on every "
                "worker core, the reference's batch shapes");
  cmd->add_flag("!--no-model-bound", o.model_bound, "Skip the model-only replay");
  cmd->add_flag("--ort-spinning", o.ort_spinning, "Let ONNX Runtime's threads spin (comparison)");
  cmd->add_flag("--ort-arena", o.ort_arena, "Use ONNX Runtime's CPU arena (comparison)");
  cmd->add_option("--rec-batch", o.rec.batch_size, "Recognition batch size")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--rec-min-width", o.rec.min_width, "Narrowest recognition input, px")
      ->check(CLI::Range(1, 3200))
      ->capture_default_str();
  cmd->add_option("--rec-width-multiple", o.rec.width_multiple,
                  "Round recognition widths up to a multiple of this")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--rec-blank-gap", o.rec.blank_gap,
                  "Read lines in pieces where background runs this many line heights (0: whole)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "Print one JSON report instead of tables");
  return cmd;
}

namespace {

using Json = nlohmann::json;

struct Input {
  std::string name;
  std::string bytes;  // encoded, decoded again by every request
};

// What every phase of a run shares. The inputs and workers outlive it.
struct BenchContext {
  const BenchOptions& options;
  const std::vector<Input>& inputs;
  InferenceWorkers& workers;
  int worker_count = 0;
  pipeline::OcrOptions ocr;
  LevelLimits limits;
};

// The model-only bound: every model call of the first inputs, recorded once, and how fast they
// replay one image at a time with ONNX Runtime using every worker core.
struct ModelBound {
  Workload workload;
  double wide_replay_per_s = 0;
};

int BenchFailed(const Status& status, int exit_code) {
  std::cerr << "onnxocr bench: " << status.message() << "\n";
  return exit_code;
}

Result<std::vector<Input>> LoadInputs(const std::string& dir, bool vary_sizes) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file())
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Input> inputs;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto data = AsBytes(bytes);
    const image::Format format = image::SniffFormat(data);
    if (format == image::Format::kUnknown || format == image::Format::kPdf)
      continue;
    if (!vary_sizes) {
      inputs.push_back({path.filename().string(), std::move(bytes)});
      continue;
    }
    // Shapes churn: each image at several scales, re-encoded losslessly.
    OCR_ASSIGN_OR_RETURN(cv::Mat image, image::DecodeImage(data));
    for (double scale : {0.5, 0.65, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5}) {
      cv::Mat scaled;
      cv::resize(image, scaled, cv::Size(), scale, scale, cv::INTER_AREA);
      std::vector<std::uint8_t> png;
      cv::imencode(".png", scaled, png);
      inputs.push_back({path.filename().string() + "@" + std::to_string(scale),
                        std::string(png.begin(), png.end())});
    }
  }
  if (inputs.empty())
    return Status(StatusCode::kNotFound, "no images in " + dir);
  if (vary_sizes) {
    std::shuffle(inputs.begin(), inputs.end(), std::mt19937(42));
  }
  return inputs;
}

// Runs `job` on a worker, waiting for a free place in the queue (more clients than places).
void SubmitWhenQueued(InferenceWorkers& workers, const sched::Job& job) {
  while (!workers.scheduler().Submit(job).ok())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// One request on the scheduler: decode and OCR on a worker, as the server does.
Result<Sample> OcrOnScheduler(InferenceWorkers& workers, const Input& input,
                              const pipeline::OcrOptions& options) {
  auto done = std::make_shared<std::promise<Result<Sample>>>();
  auto future = done->get_future();
  auto pipelines = workers.pipelines();
  Stopwatch latency;
  sched::Job job;
  job.run = [&input, &options, &pipelines, done](sched::WorkerContext& worker) {
    Sample sample;
    Stopwatch watch;
    auto image = image::DecodeImage(AsBytes(input.bytes));
    if (!image.ok()) {
      done->set_value(image.status());
      return;
    }
    sample.decode_ms = watch.LapMs();
    const pipeline::Pipeline& pipe = *pipelines[static_cast<size_t>(worker.group)].front();
    auto result = pipe.Run(*image, options, {}, &worker.runner);
    if (!result.ok()) {
      done->set_value(result.status());
      return;
    }
    sample.times = result->times;
    sample.lines = result->lines.size();
    watch.LapMs();
    layout::AnalyzeOcrLayout(result->lines, *image);
    sample.layout_ms = watch.LapMs();
    done->set_value(sample);
  };
  SubmitWhenQueued(workers, job);
  Result<Sample> sample = future.get();
  if (sample.ok())
    sample->latency_ms = latency.ElapsedMs();
  return sample;
}

// One request of the simple design: decode and OCR on the calling thread.
Result<Sample> OcrInline(const pipeline::Pipeline& pipe, const Input& input,
                         const pipeline::OcrOptions& options) {
  Stopwatch watch;
  OCR_ASSIGN_OR_RETURN(cv::Mat image, image::DecodeImage(AsBytes(input.bytes)));
  Sample sample;
  sample.decode_ms = watch.LapMs();
  OCR_ASSIGN_OR_RETURN(pipeline::OcrResult result, pipe.Run(image, options));
  sample.times = result.times;
  sample.lines = result.lines.size();
  watch.LapMs();
  layout::AnalyzeOcrLayout(result.lines, image);
  sample.layout_ms = watch.LapMs();
  sample.latency_ms = watch.ElapsedMs();
  return sample;
}

Json LevelJson(const Level& level, int workers) {
  std::vector<double> latency;
  pipeline::StageTimes sum;
  double decode = 0;
  double layout = 0;
  double lines = 0;
  for (const Sample& s : level.samples) {
    latency.push_back(s.latency_ms);
    sum += s.times;
    decode += s.decode_ms;
    layout += s.layout_ms;
    lines += static_cast<double>(s.lines);
  }
  const double n = std::max<double>(1, static_cast<double>(level.samples.size()));
  auto per = [n](double ms) { return std::round(ms / n * 100) / 100; };
  return {
      {"concurrency", level.concurrency},
      {"requests", level.requests},
      {"failures", level.failures},
      {"images_per_s", std::round(level.per_second() * 1000) / 1000},
      {"latency_ms",
       {{"p50", Percentile(latency, 50)},
        {"p95", Percentile(latency, 95)},
        {"p99", Percentile(latency, 99)}}},
      {"cpu_utilization", level.wall_s > 0 ? level.cpu_s / (level.wall_s * workers) : 0},
      // Robust to a noisy machine: the work one image costs, whoever else is running.
      {"cpu_ms_per_image", std::round(level.cpu_s * 1000 / n * 10) / 10},
      {"stage_ms_per_image",
       {{"decode", per(decode)},
        {"det_pre", per(sum.det_pre_ms)},
        {"det_infer", per(sum.det_infer_ms)},
        {"det_post", per(sum.det_post_ms)},
        {"crop", per(sum.crop_ms)},
        {"cls_pre", per(sum.cls_pre_ms)},
        {"cls_infer", per(sum.cls_infer_ms)},
        {"rec_pre", per(sum.rec_pre_ms)},
        {"rec_infer", per(sum.rec_infer_ms)},
        {"ctc", per(sum.ctc_ms)},
        {"layout", per(layout)}}},
      {"lines_per_image", lines / n},
      // Lines whose direction was classified: the page vote's sample spares the rest.
      {"cls_lines_per_image", std::round(sum.cls_crops / n * 100) / 100},
      {"rss_mib", ResidentMib()},
      {"rss_mib_samples", level.rss_mib},
  };
}

void PrintLevel(const Json& l) {
  const Json& s = l["stage_ms_per_image"];
  std::printf(
      "c=%-3d %7.3f img/s  p50 %7.1f  p95 %7.1f  p99 %7.1f ms  cpu %3.0f%% %7.1f ms/img  rss %6.1f "
      "MiB",
      l["concurrency"].get<int>(), l["images_per_s"].get<double>(),
      l["latency_ms"]["p50"].get<double>(), l["latency_ms"]["p95"].get<double>(),
      l["latency_ms"]["p99"].get<double>(), 100 * l["cpu_utilization"].get<double>(),
      l["cpu_ms_per_image"].get<double>(), l["rss_mib"].get<double>());
  if (l.contains("efficiency"))
    std::printf("  efficiency %.3f", l["efficiency"].get<double>());
  std::printf(
      "\n      ms/image: decode %.1f det %.1f/%.1f/%.1f crop %.1f cls %.1f/%.1f rec %.1f/%.1f "
      "ctc %.1f (pre/infer/post) layout %.1f\n",
      s["decode"].get<double>(), s["det_pre"].get<double>(), s["det_infer"].get<double>(),
      s["det_post"].get<double>(), s["crop"].get<double>(), s["cls_pre"].get<double>(),
      s["cls_infer"].get<double>(), s["rec_pre"].get<double>(), s["rec_infer"].get<double>(),
      s["ctc"].get<double>(), s["layout"].get<double>());
}

// Records the model calls of the first 64 inputs on the scheduler's models, then replays them
// one image at a time on `wide` (every worker core inside ONNX Runtime).
// Errors: an input that does not decode, or those of Pipeline::Run.
Result<ModelBound> RecordModelBound(const BenchContext& ctx, const pipeline::ModelSet& wide) {
  std::vector<cv::Mat> decoded;
  const size_t distinct = std::min<size_t>(ctx.inputs.size(), 64);
  for (size_t i = 0; i < distinct; ++i) {
    OCR_ASSIGN_OR_RETURN(cv::Mat image, image::DecodeImage(AsBytes(ctx.inputs[i].bytes)));
    decoded.push_back(image);
  }
  ModelBound bound;
  OCR_ASSIGN_OR_RETURN(bound.workload,
                       RecordWorkload(ctx.workers.pipelines()[0][0]->models(), decoded, ctx.ocr));
  const Level seq =
      Measure(1, ctx.limits, bound.workload.images.size(), [&](size_t i) -> Result<Sample> {
        Stopwatch watch;
        OCR_RETURN_IF_ERROR(ReplayImage(bound.workload, i, wide));
        return Sample{watch.ElapsedMs(), 0, {}, 0};
      });
  bound.wide_replay_per_s = seq.per_second();
  return bound;
}

// Replays the recorded calls on the scheduler's workers, one thread per Run, from as many clients
// as `level` had; writes the better of that and the wide replay, and the pipeline's efficiency
// against it, into `level_json`.
void AddModelBound(const BenchContext& ctx, const ModelBound& bound, const Level& level,
                   Json& level_json) {
  const pipeline::ModelSet& narrow = ctx.workers.pipelines()[0][0]->models();
  const int c = level.concurrency;
  const Level replay = Measure(c, ctx.limits, bound.workload.images.size(), [&](size_t i) {
    auto done = std::make_shared<std::promise<Status>>();
    auto future = done->get_future();
    sched::Job job;
    job.run = [&, i, done](sched::WorkerContext&) {
      done->set_value(ReplayImage(bound.workload, i, narrow));
    };
    SubmitWhenQueued(ctx.workers, job);
    const Status status = future.get();
    return status.ok() ? Result<Sample>(Sample{}) : Result<Sample>(status);
  });
  // Replays run over the first inputs only when there are more than 64 (vary-sizes); the bound is
  // per image of the same mix either way.
  const double wide = bound.wide_replay_per_s;
  const double best = std::max(replay.per_second(), wide);
  level_json["model_bound_images_per_s"] = std::round(best * 1000) / 1000;
  level_json["model_bound_setting"] =
      replay.per_second() >= wide
          ? "one thread per Run, " + std::to_string(c) + " concurrent"
          : "one Run at a time, " + std::to_string(ctx.worker_count) + " intra-op threads";
  level_json["efficiency"] = best > 0 ? std::round(level.per_second() / best * 1000) / 1000 : 0;
}

// Every --concurrency level through the scheduler, each with its model-only bound when `bound`
// holds one.
Json RunLevels(const BenchContext& ctx, const std::optional<ModelBound>& bound) {
  Json levels = Json::array();
  for (int c : ctx.options.concurrency) {
    const Level level = Measure(c, ctx.limits, ctx.inputs.size(), [&](size_t i) {
      return OcrOnScheduler(ctx.workers, ctx.inputs[i], ctx.ocr);
    });
    Json l = LevelJson(level, ctx.worker_count);
    if (bound)
      AddModelBound(ctx, *bound, level, l);
    if (!ctx.options.json)
      PrintLevel(l);
    levels.push_back(std::move(l));
  }
  return levels;
}

// The simple design, as the reference server works: requests one after another, each with every
// core inside ONNX Runtime (`wide`); in the reference's batch shapes, and in ours (so the
// scheduler's single-request latency can be compared with the best thread setting).
Json RunBaselines(const BenchContext& ctx, const pipeline::ModelSet& wide) {
  const pipeline::Pipeline simple(wide);
  Json baselines = Json::array();
  for (const bool reference_shapes : {true, false}) {
    pipeline::OcrOptions simple_options = ctx.ocr;
    if (reference_shapes)
      simple_options.rec = pipeline::RecOptions::Reference();
    const Level level = Measure(1, ctx.limits, ctx.inputs.size(), [&](size_t i) {
      return OcrInline(simple, ctx.inputs[i], simple_options);
    });
    Json b = LevelJson(level, ctx.worker_count);
    b["design"] = "one request at a time, " + std::to_string(ctx.worker_count) +
                  " intra-op threads, " + (reference_shapes ? "reference" : "default") +
                  " batch shapes";
    if (!ctx.options.json) {
      std::printf("baseline (%s):\n", b["design"].get<std::string>().c_str());
      PrintLevel(b);
    }
    baselines.push_back(std::move(b));
  }
  return baselines;
}

void PrintReport(Json& report, bool json) {
  report["rss_mib_end"] = ResidentMib();
  report["rss_mib_peak"] = PeakResidentMib();
  if (json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::printf("rss: %.1f MiB after warm-up, %.1f MiB at the end, %.1f MiB peak\n",
                report["rss_mib_after_warmup"].get<double>(), report["rss_mib_end"].get<double>(),
                report["rss_mib_peak"].get<double>());
  }
}

// After warm-up (one untimed pass so every level starts warm, skipped with --requests): the
// model-only bound, the levels, the baselines, then the report.
int RunBench(const BenchContext& ctx, const ModelSpec& spec, const engine::SessionConfig& session) {
  const BenchOptions& o = ctx.options;
  Json report = {{"workers", ctx.workers.description()}, {"worker_threads", ctx.worker_count},
                 {"images", ctx.inputs.size()},          {"vary_sizes", o.vary_sizes},
                 {"ort_spinning", o.ort_spinning},       {"ort_arena", o.ort_arena}};
  if (!o.json)
    std::printf("onnxocr bench: %zu inputs; %s\n", ctx.inputs.size(),
                ctx.workers.description().c_str());
  for (size_t i = 0; i < ctx.inputs.size() && o.requests == 0; ++i)
    (void)OcrOnScheduler(ctx.workers, ctx.inputs[i], ctx.ocr);
  report["rss_mib_after_warmup"] = ResidentMib();

  // The same models with every worker core inside ONNX Runtime, for the bound and the baselines.
  std::unique_ptr<pipeline::ModelSet> wide;
  if (o.model_bound || o.baseline) {
    engine::SessionConfig wide_session = session;
    wide_session.intra_op_threads = ctx.worker_count;
    auto loaded = pipeline::LoadModelSet(ctx.workers.runtime(), spec.name, spec.dir, wide_session);
    if (!loaded.ok())
      return BenchFailed(loaded.status(), kExitModelsFailed);
    wide = std::move(loaded).value();
  }
  std::optional<ModelBound> bound;
  if (o.model_bound) {
    auto recorded = RecordModelBound(ctx, *wide);
    if (!recorded.ok())
      return BenchFailed(recorded.status(), kExitInputUnreadable);
    bound = std::move(recorded).value();
  }
  report["levels"] = RunLevels(ctx, bound);
  if (o.baseline)
    report["baselines"] = RunBaselines(ctx, *wide);
  PrintReport(report, o.json);
  return kExitOk;
}

}  // namespace

int Bench(const BenchOptions& o) {
  cv::setNumThreads(0);
  image::QuietCodecWarnings();
  auto inputs = LoadInputs(o.images, o.vary_sizes);
  if (!inputs.ok())
    return BenchFailed(inputs.status(), kExitUsage);
  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok())
    return BenchFailed(specs.status(), kExitModelsFailed);
  engine::SessionConfig session;
  session.allow_spinning = o.ort_spinning;
  session.enable_cpu_mem_arena = o.ort_arena;
  auto started = InferenceWorkers::Start({specs->front()}, o.workers, session);
  if (!started.ok())
    return BenchFailed(started.status(), kExitModelsFailed);
  InferenceWorkers& workers = **started;
  BenchContext ctx{o, *inputs, workers, workers.scheduler().worker_count(), {}, {}};
  ctx.ocr = o.input.Options().ocr;
  ctx.ocr.rec = o.rec;
  ctx.limits = {o.duration_s, o.requests};
  return RunBench(ctx, specs->front(), session);
}

}  // namespace ocr::cli
