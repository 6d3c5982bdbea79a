#include "cli/calibrate_command.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>

#include "cli/bench_workload.h"
#include "cli/exit_codes.h"
#include "cli/model_flags.h"
#include "common/text.h"
#include "engine/ort_model.h"
#include "image/decode.h"

namespace ocr::cli {

CLI::App* AddCalibrateCommand(CLI::App& app, CalibrateOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Activation statistics for scripts/quantize-models (augmented models)");
  cmd->group("");  // hidden: a tool of the quantizer, not of users
  AddInputFlags(*cmd, o.input, document::kRunFlag);
  cmd->add_option("--images", o.images, "Folder of calibration images")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--augmented", o.augmented,
                  "Folder of augmented det.onnx, rec.onnx, cls.onnx (scripts/quantize-models)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--out", o.out, "JSON file to write")->required();
  return cmd;
}

namespace {

using Json = nlohmann::json;

// Magnitudes are binned by their float bits: 32 bins per octave (the exponent and the top five
// bits of the mantissa, so bin edges are 2^e * (1 + m/32)) from 2^-16 to 2^16. That resolves a
// percentile to 3% anywhere in the range in one pass, with no range known in advance.
constexpr int kBinsPerOctave = 32;
constexpr int kLowestOctave = -16;
constexpr int kOctaves = 32;
constexpr int kBins = kBinsPerOctave * kOctaves;

struct TensorStats {
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
  std::uint64_t count = 0;
  std::uint64_t tiny = 0;  // |x| below 2^-16, zeros included
  std::vector<std::uint64_t> pos = std::vector<std::uint64_t>(kBins);
  std::vector<std::uint64_t> neg = std::vector<std::uint64_t>(kBins);

  void Add(std::span<const float> values) {
    float lo = min;
    float hi = max;
    constexpr std::uint32_t kFirst = static_cast<std::uint32_t>(127 + kLowestOctave) << 5;
    for (float v : values) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      const std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
      const std::uint32_t key = (bits & 0x7fffffffU) >> 18;  // exponent, 5 mantissa bits
      if (key < kFirst) {
        ++tiny;
        continue;
      }
      const auto bin = std::min<std::uint32_t>(key - kFirst, kBins - 1);
      ++((bits >> 31) != 0 ? neg : pos)[bin];
    }
    min = lo;
    max = hi;
    count += values.size();
  }

  Json ToJson() const {
    // Sparse [bin, count] pairs: most bins of most tensors are empty.
    auto sparse = [](const std::vector<std::uint64_t>& h) {
      Json pairs = Json::array();
      for (size_t i = 0; i < h.size(); ++i) {
        if (h[i] != 0)
          pairs.push_back({i, h[i]});
      }
      return pairs;
    };
    return {{"min", min},   {"max", max},         {"count", count},
            {"tiny", tiny}, {"pos", sparse(pos)}, {"neg", sparse(neg)}};
  }
};

int CalibrationFailed(const Status& status, int exit_code) {
  std::cerr << "onnxocr calibrate: " << status.message() << "\n";
  return exit_code;
}

Result<std::vector<cv::Mat>> DecodeFolder(const std::string& dir, std::vector<std::string>& names) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file())
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<cv::Mat> images;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const image::Format format = image::SniffFormat(AsBytes(bytes));
    if (format == image::Format::kUnknown || format == image::Format::kPdf)
      continue;
    OCR_ASSIGN_OR_RETURN(cv::Mat image, image::DecodeImage(AsBytes(bytes)));
    images.push_back(std::move(image));
    names.push_back(path.filename().string());
  }
  if (images.empty())
    return InvalidArgument("no images in " + dir);
  return images;
}

}  // namespace

int Calibrate(const CalibrateOptions& o) {
  cv::setNumThreads(0);
  image::QuietCodecWarnings();
  std::vector<std::string> names;
  auto images = DecodeFolder(o.images, names);
  if (!images.ok())
    return CalibrationFailed(images.status(), kExitInputUnreadable);
  auto specs = ResolveModelSpecs(o.input.models);
  if (!specs.ok())
    return CalibrationFailed(specs.status(), kExitModelsFailed);
  const engine::Runtime runtime;
  engine::SessionConfig session;
  session.intra_op_threads = 0;
  auto models = pipeline::LoadModelSet(runtime, specs->front().name, specs->front().dir, session);
  if (!models.ok())
    return CalibrationFailed(models.status(), kExitModelsFailed);
  auto workload = RecordWorkload(**models, *images, o.input.Options().ocr);
  if (!workload.ok())
    return CalibrationFailed(workload.status(), kExitInputUnreadable);

  // Inputs by model, in the order the pipeline made them.
  std::map<std::string, std::vector<engine::Tensor>> inputs;
  for (const auto& calls : workload->images) {
    for (const ModelCall& call : calls) {
      const char* role = call.role == ModelRole::kDet   ? "det"
                         : call.role == ModelRole::kCls ? "cls"
                                                        : "rec";
      inputs[role].push_back(call.input);
    }
  }
  Json report = {{"format", 1},
                 {"bins_per_octave", kBinsPerOctave},
                 {"lowest_octave", kLowestOctave},
                 {"images", names},
                 {"models", Json::object()}};
  for (const auto& [role, tensors] : inputs) {
    const std::filesystem::path augmented = std::filesystem::path(o.augmented) / (role + ".onnx");
    if (!std::filesystem::exists(augmented))
      continue;
    std::map<std::string, TensorStats> stats;
    const Status run =
        engine::RunAllOutputs(runtime, augmented, tensors,
                              [&stats](const std::string& name, std::span<const float> values) {
                                stats[name].Add(values);
                              });
    if (!run.ok())
      return CalibrationFailed(run, kExitModelsFailed);
    Json tensors_json = Json::object();
    for (const auto& [name, s] : stats)
      tensors_json[name] = s.ToJson();
    report["models"][role] = {{"calls", tensors.size()}, {"tensors", std::move(tensors_json)}};
    std::cerr << "onnxocr calibrate: " << role << ": " << tensors.size() << " calls, "
              << stats.size() << " tensors\n";
  }
  std::ofstream out(o.out);
  out << report.dump() << "\n";
  if (!out)
    return CalibrationFailed(Internal("cannot write " + o.out), kExitInputUnreadable);
  return kExitOk;
}

}  // namespace ocr::cli
