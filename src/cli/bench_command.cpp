#include "cli/bench_command.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cli/bench_workload.h"
#include "cli/exit_codes.h"
#include "common/clock.h"
#include "image/decode.h"

namespace ocr::cli {

CLI::App* AddBenchCommand(CLI::App& app, BenchOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Measure throughput, latency, stage times and pipeline efficiency in-process");
  AddInputFlags(*cmd, o.input);
  AddWorkerFlags(*cmd, o.workers);
  cmd->add_option("--images", o.images, "Folder of images to OCR (JPEG, PNG, WebP, BMP, TIFF)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--concurrency", o.concurrency, "Client threads per level, e.g. 1,2,4")
      ->capture_default_str();
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
  cmd->add_flag("--json", o.json, "Print one JSON report instead of tables");
  return cmd;
}

namespace {

using Json = nlohmann::json;

struct Input {
  std::string name;
  std::string bytes;  // encoded, decoded again by every request
};

struct Sample {
  double latency_ms = 0;
  double decode_ms = 0;
  pipeline::StageTimes times;
  size_t lines = 0;
};

struct Level {
  int concurrency = 0;
  size_t requests = 0;
  size_t failures = 0;
  double wall_s = 0;
  double cpu_s = 0;
  std::vector<Sample> samples;
  std::vector<double> rss_mib;  // sampled every 5% of --requests (memory growth)

  double per_second() const { return wall_s > 0 ? static_cast<double>(requests) / wall_s : 0; }
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// VmRSS or VmHWM of this process, MiB.
double MemoryMib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0)
      return std::stod(line.substr(field.size() + 1)) / 1024.0;
  }
  return 0;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
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
    const auto data = std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
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

Result<std::vector<int>> ParseLevels(const std::string& text) {
  std::vector<int> levels;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      const int c = std::stoi(item);
      if (c < 1 || c > 4096)
        throw std::out_of_range(item);
      levels.push_back(c);
    } catch (const std::exception&) {
      return InvalidArgument("--concurrency must list numbers from 1 to 4096, e.g. 1,2,4");
    }
  }
  if (levels.empty())
    return InvalidArgument("--concurrency lists no level");
  return levels;
}

// Closed loop: `concurrency` clients each send the next input as soon as their previous one is
// answered, until the duration or the request count is used up.
Level Measure(int concurrency, const BenchOptions& o, size_t inputs,
              const std::function<Result<Sample>(size_t input)>& request) {
  Level level;
  level.concurrency = concurrency;
  std::mutex mu;
  std::atomic<size_t> next{0};
  const double cpu_before = CpuSeconds();
  Stopwatch wall;
  const double limit_ms = o.duration_s * 1000.0;
  {
    std::vector<std::jthread> clients;
    for (int c = 0; c < concurrency; ++c) {
      clients.emplace_back([&] {
        for (;;) {
          const size_t n = next.fetch_add(1);
          if (o.requests > 0 ? n >= static_cast<size_t>(o.requests) : wall.ElapsedMs() > limit_ms)
            return;
          Result<Sample> sample = request(n % inputs);
          std::lock_guard lock(mu);
          ++level.requests;
          if (o.requests > 0 && level.requests % std::max(1, o.requests / 20) == 0)
            level.rss_mib.push_back(MemoryMib("VmRSS"));
          if (sample.ok())
            level.samples.push_back(*sample);
          else
            ++level.failures;
        }
      });
    }
  }
  level.wall_s = wall.ElapsedMs() / 1000.0;
  level.cpu_s = CpuSeconds() - cpu_before;
  return level;
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
    const auto data =
        std::span(reinterpret_cast<const std::uint8_t*>(input.bytes.data()), input.bytes.size());
    auto image = image::DecodeImage(data);
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
    done->set_value(sample);
  };
  while (!workers.scheduler().Submit(job).ok())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // more clients than places
  Result<Sample> sample = future.get();
  if (sample.ok())
    sample->latency_ms = latency.ElapsedMs();
  return sample;
}

Json LevelJson(const Level& level, int workers) {
  std::vector<double> latency;
  pipeline::StageTimes sum;
  double decode = 0;
  double lines = 0;
  for (const Sample& s : level.samples) {
    latency.push_back(s.latency_ms);
    sum += s.times;
    decode += s.decode_ms;
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
        {"ctc", per(sum.ctc_ms)}}},
      {"lines_per_image", lines / n},
      {"rss_mib", MemoryMib("VmRSS")},
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
      "ctc %.1f (pre/infer/post)\n",
      s["decode"].get<double>(), s["det_pre"].get<double>(), s["det_infer"].get<double>(),
      s["det_post"].get<double>(), s["crop"].get<double>(), s["cls_pre"].get<double>(),
      s["cls_infer"].get<double>(), s["rec_pre"].get<double>(), s["rec_infer"].get<double>(),
      s["ctc"].get<double>());
}

}  // namespace

int Bench(const BenchOptions& o) {
  cv::setNumThreads(0);
  image::QuietCodecWarnings();
  auto fail = [](const Status& s, int code) {
    std::cerr << "onnxocr bench: " << s.message() << "\n";
    return code;
  };
  auto levels = ParseLevels(o.concurrency);
  if (!levels.ok())
    return fail(levels.status(), kExitUsage);
  auto inputs = LoadInputs(o.images, o.vary_sizes);
  if (!inputs.ok())
    return fail(inputs.status(), kExitUsage);
  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok())
    return fail(specs.status(), kExitModelsFailed);
  engine::SessionConfig session;
  session.allow_spinning = o.ort_spinning;
  session.enable_cpu_mem_arena = o.ort_arena;
  auto started = InferenceWorkers::Start({specs->front()}, o.workers, session);
  if (!started.ok())
    return fail(started.status(), kExitModelsFailed);
  InferenceWorkers& workers = **started;
  const int worker_count = workers.scheduler().worker_count();
  pipeline::OcrOptions options;
  options.rec = o.rec;

  Json report = {{"workers", workers.description()}, {"worker_threads", worker_count},
                 {"images", inputs->size()},         {"vary_sizes", o.vary_sizes},
                 {"ort_spinning", o.ort_spinning},   {"ort_arena", o.ort_arena}};
  if (!o.json)
    std::printf("onnxocr bench: %zu inputs; %s\n", inputs->size(), workers.description().c_str());

  // One untimed pass so every level starts warm.
  for (size_t i = 0; i < inputs->size() && o.requests == 0; ++i)
    (void)OcrOnScheduler(workers, (*inputs)[i], options);
  report["rss_mib_after_warmup"] = MemoryMib("VmRSS");

  // The model-only bound: the recorded calls replayed on the same pinned workers, one thread per
  // Run, and one at a time with ONNX Runtime using every worker core; the better of the two.
  std::optional<Workload> workload;
  std::unique_ptr<pipeline::ModelSet> wide;
  engine::SessionConfig wide_session = session;
  wide_session.intra_op_threads = worker_count;
  if (o.model_bound || o.baseline) {
    auto loaded = pipeline::LoadModelSet(workers.runtime(), specs->front().name, specs->front().dir,
                                         wide_session);
    if (!loaded.ok())
      return fail(loaded.status(), kExitModelsFailed);
    wide = std::move(loaded).value();
  }
  double wide_replay_per_s = 0;
  if (o.model_bound) {
    std::vector<cv::Mat> decoded;
    const size_t distinct = std::min<size_t>(inputs->size(), 64);
    for (size_t i = 0; i < distinct; ++i) {
      const auto& bytes = (*inputs)[i].bytes;
      auto image = image::DecodeImage(
          std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
      if (!image.ok())
        return fail(image.status(), kExitInputUnreadable);
      decoded.push_back(*image);
    }
    auto recorded = RecordWorkload(workers.pipelines()[0][0]->models(), decoded, options);
    if (!recorded.ok())
      return fail(recorded.status(), kExitInputUnreadable);
    workload = std::move(recorded).value();
    const Level seq = Measure(1, o, workload->images.size(), [&](size_t i) -> Result<Sample> {
      Stopwatch watch;
      OCR_RETURN_IF_ERROR(ReplayImage(*workload, i, *wide));
      return Sample{watch.ElapsedMs(), 0, {}, 0};
    });
    wide_replay_per_s = seq.per_second();
  }

  Json out_levels = Json::array();
  for (int c : *levels) {
    const Level level = Measure(c, o, inputs->size(), [&](size_t i) {
      return OcrOnScheduler(workers, (*inputs)[i], options);
    });
    Json l = LevelJson(level, worker_count);
    if (workload) {
      const pipeline::ModelSet& narrow = workers.pipelines()[0][0]->models();
      const Level replay = Measure(c, o, workload->images.size(), [&](size_t i) {
        auto done = std::make_shared<std::promise<Status>>();
        auto future = done->get_future();
        sched::Job job;
        job.run = [&, i, done](sched::WorkerContext&) {
          done->set_value(ReplayImage(*workload, i, narrow));
        };
        while (!workers.scheduler().Submit(job).ok())
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const Status status = future.get();
        return status.ok() ? Result<Sample>(Sample{}) : Result<Sample>(status);
      });
      // Replays run over the first inputs only when there are more than 64 (vary-sizes); the
      // bound is per image of the same mix either way.
      const double bound = std::max(replay.per_second(), wide_replay_per_s);
      l["model_bound_images_per_s"] = std::round(bound * 1000) / 1000;
      l["model_bound_setting"] =
          replay.per_second() >= wide_replay_per_s
              ? "one thread per Run, " + std::to_string(c) + " concurrent"
              : "one Run at a time, " + std::to_string(worker_count) + " intra-op threads";
      l["efficiency"] = bound > 0 ? std::round(level.per_second() / bound * 1000) / 1000 : 0;
    }
    if (!o.json)
      PrintLevel(l);
    out_levels.push_back(std::move(l));
  }
  report["levels"] = std::move(out_levels);

  if (o.baseline) {
    // The simple design, as the reference server works: requests one after another, each with
    // every core inside ONNX Runtime; in the reference's batch shapes, and in ours (so the
    // scheduler's single-request latency can be compared with the best thread setting).
    const pipeline::Pipeline simple(*wide);
    Json baselines = Json::array();
    for (const bool reference_shapes : {true, false}) {
      pipeline::OcrOptions simple_options = options;
      if (reference_shapes)
        simple_options.rec = pipeline::RecOptions::Reference();
      const Level level = Measure(1, o, inputs->size(), [&](size_t i) -> Result<Sample> {
        Stopwatch watch;
        const auto& bytes = (*inputs)[i].bytes;
        OCR_ASSIGN_OR_RETURN(
            cv::Mat image, image::DecodeImage(std::span(
                               reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())));
        Sample sample;
        sample.decode_ms = watch.LapMs();
        OCR_ASSIGN_OR_RETURN(pipeline::OcrResult result, simple.Run(image, simple_options));
        sample.times = result.times;
        sample.lines = result.lines.size();
        sample.latency_ms = watch.ElapsedMs();
        return sample;
      });
      Json b = LevelJson(level, worker_count);
      b["design"] = "one request at a time, " + std::to_string(worker_count) +
                    " intra-op threads, " + (reference_shapes ? "reference" : "default") +
                    " batch shapes";
      if (!o.json) {
        std::printf("baseline (%s):\n", b["design"].get<std::string>().c_str());
        PrintLevel(b);
      }
      baselines.push_back(std::move(b));
    }
    report["baselines"] = std::move(baselines);
  }
  report["rss_mib_end"] = MemoryMib("VmRSS");
  report["rss_mib_peak"] = MemoryMib("VmHWM");
  if (o.json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::printf("rss: %.1f MiB after warm-up, %.1f MiB at the end, %.1f MiB peak\n",
                report["rss_mib_after_warmup"].get<double>(), report["rss_mib_end"].get<double>(),
                report["rss_mib_peak"].get<double>());
  }
  return kExitOk;
}

}  // namespace ocr::cli
