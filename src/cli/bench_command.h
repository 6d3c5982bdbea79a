// `onnxocr bench`: the real pipeline in-process over a folder of images at several concurrency
// levels, on the same scheduler and worker placement as `serve`. Reports throughput, latency
// percentiles, CPU use, time per stage, resident memory, and the model-only bound with the
// pipeline efficiency (spec/API.md section 6); optionally the "simple design" baseline (one
// request at a time, ONNX Runtime using every thread). Numbers for BENCHMARKS.md come from here.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/inference_workers.h"
#include "cli/input_flags.h"
#include "pipeline/rec/text_recognizer.h"

namespace ocr::cli {

struct BenchOptions {
  InputFlags input;  // --models and the input limits
  WorkerFlags workers;
  std::string images;                        // folder of images
  std::vector<int> concurrency = {1, 2, 4};  // client threads per level, in order
  double duration_s = 10;                    // per level (ignored with --requests)
  int requests = 0;                          // per level, instead of a duration
  bool vary_sizes = false;    // rescale each request's image (memory under shape churn)
  bool baseline = false;      // also measure the simple design
  bool model_bound = true;    // replay the model calls alone
  bool ort_spinning = false;  // session.intra_op.allow_spinning, for the comparison
  bool ort_arena = false;     // ONNX Runtime's CPU memory arena, for the comparison
  bool json = false;
  pipeline::RecOptions rec;  // recognition batch shapes, for the comparison
};

CLI::App* AddBenchCommand(CLI::App& app, BenchOptions& options);

// Returns the process exit code.
int Bench(const BenchOptions& options);

}  // namespace ocr::cli
