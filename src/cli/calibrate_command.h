// `onnxocr calibrate` (hidden): the activation statistics scripts/quantize-models chooses its int8
// ranges from. It runs the real pipeline over a folder of images with an fp32 model set, keeps
// every det, cls and rec input (cli/bench_workload.h), runs the augmented copies of the models
// (every tensor to be quantized is a graph output; the script writes them) on those inputs and
// writes, per model and tensor, the minimum, the maximum and a histogram of magnitudes as JSON.
// With --photo-variants, each image is also read as a camera and a scanner would have seen it
// (a tilted, unevenly lit, blurred, noisy JPEG; a small one; a faint one), so that ranges are
// taken from inputs closer to real pages than clean renders.
// With --candidates DIR, it measures instead how far each candidate model (DIR/det/*.onnx,
// DIR/rec/*.onnx: the same model with one node quantized, say) moves the output of
// DIR/<role>/reference.onnx on those inputs: for det the share of text pixels (probability over
// the detector's 0.3) that flip, for rec the share of read time steps whose best class changes.
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
                          // (unused with candidates)
  std::string out;        // the JSON written
  bool photo_variants = false;  // also calibrate on degraded copies of each image
  std::string candidates;       // folder of candidate models to compare (empty: statistics)
};

CLI::App* AddCalibrateCommand(CLI::App& app, CalibrateOptions& options);

// Returns the process exit code.
int Calibrate(const CalibrateOptions& options);

}  // namespace ocr::cli
