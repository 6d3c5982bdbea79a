#include "pipeline/cls/text_classifier.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include <opencv2/imgproc.hpp>

#include "common/check.h"
#include "common/clock.h"
#include "pipeline/batching.h"
#include "pipeline/model_input.h"

namespace ocr::pipeline {

std::optional<std::uint8_t> PageDirection(const std::vector<std::uint8_t>& flipped,
                                          std::span<const size_t> lines, double share,
                                          size_t min_lines) {
  if (lines.size() < min_lines || lines.empty())
    return std::nullopt;
  size_t turned = 0;
  for (const size_t i : lines)
    turned += flipped[i] != 0 ? 1 : 0;
  const auto n = static_cast<double>(lines.size());
  if (static_cast<double>(turned) >= share * n)
    return 1;
  if (static_cast<double>(lines.size() - turned) >= share * n)
    return 0;
  return std::nullopt;
}

namespace {

// The page vote (ClsOptions::page_vote) through `classify`, which fills `flipped` for the crops
// it is given.
Status VoteByOrientation(const std::vector<cv::Mat>& crops, std::span<const std::uint8_t> vertical,
                         const std::function<Status(std::span<const size_t>)>& classify,
                         std::vector<std::uint8_t>& flipped) {
  // Each orientation votes on its own: the tall lines of an upright page (a document number
  // up its margin) may face either way, those of a page turned 90 degrees share its direction.
  std::vector<size_t> tall, horizontal;
  for (size_t i = 0; i < crops.size(); ++i)
    (vertical[i] != 0 ? tall : horizontal).push_back(i);
  // The tall crops are all classified, the horizontal lines first through a sample of the
  // longest: a long line has the most glyphs to judge by.
  std::stable_sort(horizontal.begin(), horizontal.end(),
                   [&](size_t a, size_t b) { return crops[a].cols > crops[b].cols; });
  const size_t sampled = std::min(horizontal.size(), kVoteSample);
  std::vector<size_t> first = tall;
  first.insert(first.end(), horizontal.begin(), horizontal.begin() + static_cast<long>(sampled));
  OCR_RETURN_IF_ERROR(classify(first));
  std::optional<std::uint8_t> page;
  if (sampled < horizontal.size()) {
    page = PageDirection(flipped, std::span<const size_t>(horizontal).first(sampled), kSampleShare,
                         kVoteSample);
    if (!page)
      OCR_RETURN_IF_ERROR(classify(std::span<const size_t>(horizontal).subspan(sampled)));
  }
  if (!page)
    page = PageDirection(flipped, horizontal, kPageVoteShare, kPageVoteMinLines);
  auto follow = [&](const std::vector<size_t>& lines, std::optional<std::uint8_t> direction) {
    if (direction) {
      for (const size_t i : lines)
        flipped[i] = *direction;
    }
  };
  follow(horizontal, page);
  follow(tall, PageDirection(flipped, tall, kPageVoteShare, kPageVoteMinLines));
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::uint8_t>> TextClassifier::Classify(std::vector<cv::Mat>& crops,
                                                           std::span<const std::uint8_t> vertical,
                                                           const ClsOptions& options,
                                                           StageTimes& times, TaskRunner& runner,
                                                           const std::stop_token& stop) const {
  OCR_CHECK(vertical.size() == crops.size());
  std::vector<std::uint8_t> flipped(crops.size(), 0);
  const size_t plane = static_cast<size_t>(height_) * static_cast<size_t>(width_);
  // Classifies crops[which[k]] for every k, filling `flipped`.
  auto classify = [&](std::span<const size_t> which) -> Status {
    auto run_batch = [&](size_t begin, size_t n, StageTimes& batch_times) -> Status {
      Stopwatch watch;
      engine::Tensor input;
      input.shape = {static_cast<std::int64_t>(n), 3, height_, width_};
      input.data.assign(n * 3 * plane, 0.0f);
      for (size_t i = 0; i < n; ++i)
        FillCropInput(crops[which[begin + i]], height_, width_, normalization_,
                      input.data.data() + i * 3 * plane);
      batch_times.cls_pre_ms += watch.LapMs();
      OCR_ASSIGN_OR_RETURN(engine::Tensor output, model_.Run(input, stop));
      batch_times.cls_infer_ms += watch.LapMs();
      batch_times.cls_calls += 1;
      batch_times.cls_crops += static_cast<int>(n);
      if (output.shape.size() != 2 || output.shape[0] != static_cast<std::int64_t>(n) ||
          output.shape[1] < 2) {
        return Internal("direction model returned an unexpected shape");
      }
      const size_t labels = static_cast<size_t>(output.shape[1]);
      for (size_t i = 0; i < n; ++i) {
        const float* p = output.data.data() + i * labels;
        const size_t best = static_cast<size_t>(std::max_element(p, p + labels) - p);
        // Label 1 is "180" for both the v2 classifier and PP-LCNet.
        if (best == 1 && p[1] >= options.thresh)
          flipped[which[begin + i]] = 1;
      }
      return Status::Ok();
    };
    return ForEachBatch(which.size(), static_cast<size_t>(options.batch_size), runner, stop, times,
                        run_batch);
  };

  if (!options.page_vote) {
    std::vector<size_t> all(crops.size());
    std::iota(all.begin(), all.end(), size_t{0});
    OCR_RETURN_IF_ERROR(classify(all));
  } else {
    OCR_RETURN_IF_ERROR(VoteByOrientation(crops, vertical, classify, flipped));
  }
  for (size_t i = 0; i < crops.size(); ++i) {
    if (flipped[i] != 0)
      cv::rotate(crops[i], crops[i], cv::ROTATE_180);
  }
  return flipped;
}

}  // namespace ocr::pipeline
