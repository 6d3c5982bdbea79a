// onnxocr: dispatches to the subcommands. Each subcommand lives in its own file.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/bench_command.h"
#include "cli/calibrate_command.h"
#include "cli/exit_codes.h"
#include "cli/jobs_command.h"
#include "cli/models_command.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "engine/ort_model.h"

#ifndef OCR_VERSION
#define OCR_VERSION "0.0.0"
#endif

namespace {

int Main(int argc, char** argv) {
  CLI::App app{"OnnxOCR Server: PaddleOCR models on ONNX Runtime", "onnxocr"};
  app.set_version_flag("--version", [] {
    return std::string("onnxocr ") + OCR_VERSION + " (ONNX Runtime " +
           ocr::engine::Runtime::Version() + ")";
  });
  app.require_subcommand(1);
  ocr::cli::RunOptions run_options;
  CLI::App* run = ocr::cli::AddRunCommand(app, run_options);
  ocr::cli::ServeOptions serve_options;
  CLI::App* serve = ocr::cli::AddServeCommand(app, serve_options);
  ocr::cli::BenchOptions bench_options;
  CLI::App* bench = ocr::cli::AddBenchCommand(app, bench_options);
  ocr::cli::CalibrateOptions calibrate_options;
  CLI::App* calibrate = ocr::cli::AddCalibrateCommand(app, calibrate_options);
  ocr::cli::JobsOptions jobs_options;
  CLI::App* jobs = ocr::cli::AddJobsCommand(app, jobs_options);
  ocr::cli::ModelsOptions models_options;
  CLI::App* models = ocr::cli::AddModelsCommand(app, models_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? ocr::cli::kExitOk : ocr::cli::kExitUsage;
  }
  if (run->parsed())
    return ocr::cli::Run(run_options);
  if (serve->parsed())
    return ocr::cli::Serve(serve_options);
  if (bench->parsed())
    return ocr::cli::Bench(bench_options);
  if (calibrate->parsed())
    return ocr::cli::Calibrate(calibrate_options);
  if (jobs->parsed())
    return ocr::cli::Jobs(jobs_options);
  if (models->parsed())
    return ocr::cli::Models(models_options);
  return ocr::cli::kExitUsage;
}

}  // namespace

// Every expected failure is a Status with its own exit code; an exception that escapes a
// subcommand (out of memory while loading, a library bug) still ends with a message, not a
// terminate().
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "onnxocr: " << e.what() << "\n";
    return 1;
  }
}
