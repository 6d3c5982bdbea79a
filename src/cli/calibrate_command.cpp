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
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cli/bench_workload.h"
#include "cli/exit_codes.h"
#include "cli/model_flags.h"
#include "common/text.h"
#include "engine/ort_model.h"
#include "image/decode.h"
#include "pipeline/model_family.h"

namespace ocr::cli {

CLI::App* AddCalibrateCommand(CLI::App& app, CalibrateOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Activation statistics for scripts/quantize-models (augmented models)");
  cmd->group("");  // hidden: a tool of the quantizer, not of users
  AddInputFlags(*cmd, o.input, document::kRunFlag);
  cmd->add_option("--images", o.images, "Folder of calibration images")
      ->required()
      ->check(CLI::ExistingDirectory);
  auto* augmented =
      cmd->add_option("--augmented", o.augmented,
                      "Folder of augmented det.onnx, rec.onnx, cls.onnx (scripts/quantize-models)");
  augmented->check(CLI::ExistingDirectory);
  cmd->add_option("--candidates", o.candidates,
                  "Folder of det/ and rec/ candidate models to compare with their reference.onnx")
      ->check(CLI::ExistingDirectory)
      ->excludes(augmented);
  cmd->add_option("--out", o.out, "JSON file to write")->required();
  cmd->add_flag("--photo-variants", o.photo_variants,
                "Also calibrate on a photographed, a small and a faint copy of each image");
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

// `image` as a JPEG of `quality` would give it back.
cv::Mat ThroughJpeg(const cv::Mat& image, int quality) {
  std::vector<std::uint8_t> jpeg;
  cv::imencode(".jpg", image, jpeg, {cv::IMWRITE_JPEG_QUALITY, quality});
  return cv::imdecode(jpeg, cv::IMREAD_COLOR);
}

cv::Mat WithNoise(const cv::Mat& image, double sigma, cv::RNG& rng) {
  cv::Mat noise(image.size(), CV_16SC3);
  rng.fill(noise, cv::RNG::NORMAL, 0, sigma);
  cv::Mat noisy;
  cv::add(image, noise, noisy, cv::noArray(), CV_8UC3);
  return noisy;
}

// What real pages do to a clean render, each a fixed recipe with seeded randomness so that every
// machine makes the same set: a phone's photo (tilted in perspective, lit from one side, slightly
// out of focus, sensor noise, a JPEG), the same page taken from further away (half the pixels),
// and a faint print on grey paper (low contrast, a scanner's blur and noise).
std::vector<cv::Mat> PhotoVariants(const cv::Mat& page, cv::RNG& rng) {
  const auto w = static_cast<float>(page.cols);
  const auto h = static_cast<float>(page.rows);
  auto jitter = [&rng](float side) { return rng.uniform(0.0F, 0.04F * side); };
  const std::vector<cv::Point2f> from = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  const std::vector<cv::Point2f> to = {{jitter(w), jitter(h)},
                                       {w - jitter(w), jitter(h)},
                                       {w - jitter(w), h - jitter(h)},
                                       {jitter(w), h - jitter(h)}};
  cv::Mat photo;
  cv::warpPerspective(page, photo, cv::getPerspectiveTransform(from, to), page.size(),
                      cv::INTER_LINEAR, cv::BORDER_REPLICATE);
  cv::Mat light(page.size(), CV_32FC3);
  for (int x = 0; x < page.cols; ++x) {
    const float gain = 0.6F + 0.4F * static_cast<float>(x) / std::max(1.0F, w - 1);
    light.col(x).setTo(cv::Scalar::all(gain));
  }
  photo.convertTo(photo, CV_32FC3);
  cv::multiply(photo, light, photo);
  photo.convertTo(photo, CV_8UC3);
  cv::GaussianBlur(photo, photo, cv::Size(), 1.0);
  photo = ThroughJpeg(WithNoise(photo, 6, rng), 50);

  cv::Mat small;
  cv::resize(page, small, cv::Size(), 0.5, 0.5, cv::INTER_AREA);
  small = ThroughJpeg(small, 70);

  cv::Mat faint;
  page.convertTo(faint, CV_8UC3, 0.45, 120);  // black ink reads grey 120 on paper grey 235
  cv::GaussianBlur(faint, faint, cv::Size(), 0.8);
  faint = WithNoise(faint, 5, rng);
  return {photo, small, faint};
}

// What a model's output on one recorded input is compared by. det: one entry per pixel, 1 where
// it is text (over `text_probability`, its family's DB threshold: a pixel whose probability
// crosses it changes the boxes). rec: per crop of the batch, the labels greedy CTC decoding reads
// (the best class of each time step, repeats merged, blanks dropped).
using Summary = std::vector<std::vector<std::int32_t>>;

Summary Summarize(const std::string& role, std::span<const float> values, std::int64_t crops,
                  std::int64_t classes, float text_probability) {
  Summary summary;
  if (role == "det") {
    std::vector<std::int32_t>& text = summary.emplace_back();
    text.reserve(values.size());
    for (const float v : values)
      text.push_back(v > text_probability ? 1 : 0);
    return summary;
  }
  const auto crop_count = static_cast<std::size_t>(std::max<std::int64_t>(1, crops));
  const auto class_count = static_cast<std::size_t>(std::max<std::int64_t>(1, classes));
  const std::size_t per_crop = values.size() / crop_count;
  if (per_crop == 0)
    return summary;
  for (std::size_t crop = 0; crop + per_crop <= values.size(); crop += per_crop) {
    std::vector<std::int32_t>& labels = summary.emplace_back();
    std::int32_t previous = 0;
    for (std::size_t at = crop; at + class_count <= crop + per_crop; at += class_count) {
      const auto step = values.subspan(at, class_count);
      const auto best = static_cast<std::int32_t>(
          std::distance(step.begin(), std::max_element(step.begin(), step.end())));
      if (best != 0 && best != previous)
        labels.push_back(best);
      previous = best;
    }
  }
  return summary;
}

std::size_t EditDistance(std::span<const std::int32_t> a, std::span<const std::int32_t> b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// How far `other` is from `reference` over all recorded inputs. det: the share of pixels that
// either calls text where the two disagree. rec: the character error rate of the candidate's
// readings against the reference's.
double Disagreement(const std::string& role, const std::vector<Summary>& reference,
                    const std::vector<Summary>& other) {
  std::uint64_t total = 0;
  std::uint64_t differ = 0;
  for (std::size_t call = 0; call < reference.size() && call < other.size(); ++call) {
    for (std::size_t k = 0; k < reference[call].size() && k < other[call].size(); ++k) {
      const std::vector<std::int32_t>& r = reference[call][k];
      const std::vector<std::int32_t>& o = other[call][k];
      if (role == "rec") {
        total += r.size();
        differ += EditDistance(r, o);
        continue;
      }
      for (std::size_t i = 0; i < r.size() && i < o.size(); ++i) {
        if (r[i] == 0 && o[i] == 0)
          continue;
        ++total;
        differ += r[i] != o[i] ? 1 : 0;
      }
    }
  }
  return total == 0 ? 0.0 : static_cast<double>(differ) / static_cast<double>(total);
}

// Runs `model` on `inputs` and summarizes each output (Summarize()), in input order.
Result<std::vector<Summary>> Summaries(const engine::Runtime& runtime,
                                       const std::filesystem::path& model, const std::string& role,
                                       std::span<const engine::Tensor> inputs, std::int64_t classes,
                                       float text_probability) {
  std::vector<Summary> summaries;
  OCR_RETURN_IF_ERROR(engine::RunAllOutputs(
      runtime, model, inputs, [&](const std::string& /*name*/, std::span<const float> values) {
        const std::int64_t crops = inputs[summaries.size()].shape.front();
        summaries.push_back(Summarize(role, values, crops, classes, text_probability));
      }));
  return summaries;
}

// Every candidate of --candidates against its role's reference.onnx: {role: {name: share}}.
Result<Json> CompareCandidates(const engine::Runtime& runtime, const std::filesystem::path& dir,
                               const std::map<std::string, std::vector<engine::Tensor>>& inputs,
                               std::int64_t rec_classes, float text_probability) {
  Json report = Json::object();
  for (const std::string role : {"det", "rec"}) {
    const std::filesystem::path folder = dir / role;
    const auto recorded = inputs.find(role);
    if (!std::filesystem::is_directory(folder) || recorded == inputs.end())
      continue;
    const std::int64_t classes = role == "rec" ? rec_classes : 1;
    OCR_ASSIGN_OR_RETURN(const std::vector<Summary> reference,
                         Summaries(runtime, folder / "reference.onnx", role, recorded->second,
                                   classes, text_probability));
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() == ".onnx" && entry.path().stem() != "reference")
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    Json shares = Json::object();
    for (const auto& file : files) {
      OCR_ASSIGN_OR_RETURN(
          const std::vector<Summary> candidate,
          Summaries(runtime, file, role, recorded->second, classes, text_probability));
      const double share = Disagreement(role, reference, candidate);
      shares[file.stem().string()] = share;
      std::cerr << "onnxocr calibrate: " << role << " " << file.stem().string() << ": " << share
                << "\n";
    }
    report[role] = std::move(shares);
  }
  return report;
}

// Each image's photo variants (photographed, small, faint) after the clean images, named
// "NAME#photo" and so on: calibration data closer to real pages.
void AddPhotoVariants(std::vector<cv::Mat>& images, std::vector<std::string>& names) {
  cv::RNG rng(20261129);
  const std::size_t clean = images.size();
  for (std::size_t i = 0; i < clean; ++i) {
    const std::vector<cv::Mat> variants = PhotoVariants(images[i], rng);
    const char* kinds[] = {"photo", "small", "faint"};
    for (std::size_t v = 0; v < variants.size(); ++v) {
      images.push_back(variants[v]);
      names.push_back(names[i] + "#" + kinds[v]);
    }
  }
}

// The workload's inputs by model ("det", "cls", "rec"), in the order the pipeline made them.
std::map<std::string, std::vector<engine::Tensor>> InputsByModel(const Workload& workload) {
  std::map<std::string, std::vector<engine::Tensor>> inputs;
  for (const auto& calls : workload.images) {
    for (const ModelCall& call : calls) {
      const char* role = call.role == ModelRole::kDet   ? "det"
                         : call.role == ModelRole::kCls ? "cls"
                                                        : "rec";
      inputs[role].push_back(call.input);
    }
  }
  return inputs;
}

// Every tensor's value histogram for each model of `augmented_dir` (ROLE.onnx, which outputs all
// its tensors) over its recorded inputs.
Result<Json> RangeReport(const engine::Runtime& runtime, const std::string& augmented_dir,
                         const std::vector<std::string>& names,
                         const std::map<std::string, std::vector<engine::Tensor>>& inputs) {
  Json report = {{"format", 1},
                 {"bins_per_octave", kBinsPerOctave},
                 {"lowest_octave", kLowestOctave},
                 {"images", names},
                 {"models", Json::object()}};
  for (const auto& [role, tensors] : inputs) {
    const std::filesystem::path augmented = std::filesystem::path(augmented_dir) / (role + ".onnx");
    if (!std::filesystem::exists(augmented))
      continue;
    std::map<std::string, TensorStats> stats;
    const Status run =
        engine::RunAllOutputs(runtime, augmented, tensors,
                              [&stats](const std::string& name, std::span<const float> values) {
                                stats[name].Add(values);
                              });
    OCR_RETURN_IF_ERROR(run);
    Json tensors_json = Json::object();
    for (const auto& [name, s] : stats)
      tensors_json[name] = s.ToJson();
    report["models"][role] = {{"calls", tensors.size()}, {"tensors", std::move(tensors_json)}};
    std::cerr << "onnxocr calibrate: " << role << ": " << tensors.size() << " calls, "
              << stats.size() << " tensors\n";
  }
  return report;
}

}  // namespace

int Calibrate(const CalibrateOptions& o) {
  cv::setNumThreads(0);
  image::QuietCodecWarnings();
  if (o.augmented.empty() == o.candidates.empty())
    return CalibrationFailed(InvalidArgument("give --augmented or --candidates"), kExitUsage);
  std::vector<std::string> names;
  auto images = DecodeFolder(o.images, names);
  if (!images.ok())
    return CalibrationFailed(images.status(), kExitInputUnreadable);
  if (o.photo_variants)
    AddPhotoVariants(*images, names);
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

  const std::map<std::string, std::vector<engine::Tensor>> inputs = InputsByModel(*workload);
  if (!o.candidates.empty()) {
    auto compared = CompareCandidates(runtime, o.candidates, inputs,
                                      static_cast<std::int64_t>((*models)->charset.size()),
                                      pipeline::SettingsOf((*models)->det_part.family).db.thresh);
    if (!compared.ok())
      return CalibrationFailed(compared.status(), kExitModelsFailed);
    std::ofstream out(o.out);
    out << compared->dump(1) << "\n";
    return out ? kExitOk
               : CalibrationFailed(Internal("cannot write " + o.out), kExitInputUnreadable);
  }
  auto report = RangeReport(runtime, o.augmented, names, inputs);
  if (!report.ok())
    return CalibrationFailed(report.status(), kExitModelsFailed);
  std::ofstream out(o.out);
  out << report->dump() << "\n";
  if (!out)
    return CalibrationFailed(Internal("cannot write " + o.out), kExitInputUnreadable);
  return kExitOk;
}

}  // namespace ocr::cli
