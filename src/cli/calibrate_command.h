// `onnxocr calibrate` (hidden): the activation statistics scripts/quantize-models chooses its int8
// ranges from. It runs the real pipeline over a folder of images with an fp32 model set, keeps
// every det, cls and rec input (cli/bench_workload.h), runs the augmented copies of the models
// (every tensor to be quantized is a graph output; the script writes them) on those inputs and
// writes, per model and tensor, the minimum, the maximum and a histogram of magnitudes as JSON.
// Thread-safety: called from main() only.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/input_flags.h"

namespace ocr::cli {

struct CalibrateOptions {
  InputFlags input;       // --models: the fp32 set the pipeline runs with
  std::string images;     // folder of calibration images
  std::string augmented;  // folder with det.onnx, rec.onnx and optionally cls.onnx (augmented)
  std::string out;        // the JSON written
};

CLI::App* AddCalibrateCommand(CLI::App& app, CalibrateOptions& options);

// Returns the process exit code.
int Calibrate(const CalibrateOptions& options);

}  // namespace ocr::cli
