#include "pipeline/rec/text_recognizer.h"

#include <algorithm>

#include <opencv2/imgproc.hpp>

#include "common/clock.h"
#include "pipeline/batching.h"
#include "pipeline/model_input.h"
#include "pipeline/rec/blank_gaps.h"

namespace ocr::pipeline {
namespace {

double AspectRatio(const cv::Mat& m) {
  return static_cast<double>(m.cols) / static_cast<double>(m.rows);
}

}  // namespace

int TextRecognizer::BatchWidth(double max_wh_ratio, const RecOptions& options) const {
  if (fixed_width_ > 0)
    return fixed_width_;
  const int multiple = std::max(1, options.width_multiple);
  int width = std::max(static_cast<int>(height_ * max_wh_ratio), options.min_width);
  width = (width + multiple - 1) / multiple * multiple;
  return std::max(1, std::min(width, std::max(options.max_width, height_)));
}

Result<std::vector<DecodedText>> TextRecognizer::Recognize(std::span<const cv::Mat> crops,
                                                           const RecOptions& options,
                                                           StageTimes& times, TaskRunner& runner,
                                                           const std::stop_token& stop) const {
  if (options.blank_gap <= 0)
    return RecognizeWhole(crops, options, times, runner, stop);
  Stopwatch watch;
  std::vector<cv::Mat> pieces;
  std::vector<InkSpan> spans;
  std::vector<size_t> first_piece;  // per crop, then one past the last piece
  pieces.reserve(crops.size());
  spans.reserve(crops.size());
  first_piece.reserve(crops.size() + 1);
  bool cut = false;
  for (const cv::Mat& crop : crops) {
    first_piece.push_back(pieces.size());
    for (const InkSpan& span : InkSpans(crop, options.blank_gap)) {
      pieces.push_back(crop.colRange(span.x0, span.x1));
      spans.push_back(span);
      cut = cut || span.x0 > 0 || span.x1 < crop.cols;
    }
  }
  first_piece.push_back(pieces.size());
  times.rec_pre_ms += watch.LapMs();
  if (!cut)
    return RecognizeWhole(crops, options, times, runner, stop);
  OCR_ASSIGN_OR_RETURN(std::vector<DecodedText> readings,
                       RecognizeWhole(pieces, options, times, runner, stop));
  std::vector<DecodedText> results(crops.size());
  for (size_t i = 0; i < crops.size(); ++i) {
    const size_t begin = first_piece[i];
    const size_t n = first_piece[i + 1] - begin;
    results[i] =
        n == 1 && spans[begin].x0 == 0 && spans[begin].x1 == crops[i].cols
            ? std::move(readings[begin])
            : JoinSpans(std::span(readings).subspan(begin, n), std::span(spans).subspan(begin, n));
  }
  return results;
}

Result<std::vector<DecodedText>> TextRecognizer::RecognizeWhole(std::span<const cv::Mat> crops,
                                                                const RecOptions& options,
                                                                StageTimes& times,
                                                                TaskRunner& runner,
                                                                const std::stop_token& stop) const {
  std::vector<DecodedText> results(crops.size());
  const std::vector<size_t> order = OrderByAspectRatio(crops);
  auto run_batch = [&](size_t begin, size_t n, StageTimes& batch_times) -> Status {
    Stopwatch watch;
    double max_ratio = 0;
    for (size_t i = 0; i < n; ++i)
      max_ratio = std::max(max_ratio, AspectRatio(crops[order[begin + i]]));
    const int width = BatchWidth(max_ratio, options);
    const size_t plane = static_cast<size_t>(height_) * static_cast<size_t>(width);
    engine::Tensor input;
    input.shape = {static_cast<std::int64_t>(n), 3, height_, width};
    input.data.assign(n * 3 * plane, 0.0f);
    std::vector<int> resized_widths(n);
    for (size_t i = 0; i < n; ++i) {
      resized_widths[i] = FillCropInput(crops[order[begin + i]], height_, width, normalization_,
                                        input.data.data() + i * 3 * plane);
    }
    batch_times.rec_pre_ms += watch.LapMs();
    OCR_ASSIGN_OR_RETURN(engine::Tensor output, model_.Run(input, stop));
    batch_times.rec_infer_ms += watch.LapMs();
    batch_times.rec_calls += 1;
    if (output.shape.size() != 3 || output.shape[0] != static_cast<std::int64_t>(n) ||
        output.shape[2] != static_cast<std::int64_t>(charset_.size())) {
      return Internal("recognition model returned an unexpected shape");
    }
    const int steps = static_cast<int>(output.shape[1]);
    const int classes = static_cast<int>(output.shape[2]);
    const size_t per_item = static_cast<size_t>(steps) * static_cast<size_t>(classes);
    for (size_t i = 0; i < n; ++i) {
      DecodedText& decoded = results[order[begin + i]];
      const std::span<const float> probs(output.data.data() + i * per_item, per_item);
      decoded = CtcGreedyDecode(probs, steps, classes, charset_);
      if (options.lexicon) {
        ReadStrayMarksAsSpaces(decoded, probs, steps, classes, latin_, Lexicon::English());
        CorrectUnsureWords(decoded, probs, steps, classes, latin_, Lexicon::English());
      }
      // Step t covers [t, t+1) * width / steps of the padded input; the crop fills
      // [0, resized) of it, so one step is (width / steps) * (crop width / resized) crop pixels.
      const cv::Mat& crop = crops[order[begin + i]];
      if (steps > 0) {
        decoded.column_width =
            static_cast<float>(static_cast<double>(width) / steps * crop.cols / resized_widths[i]);
      }
    }
    batch_times.ctc_ms += watch.LapMs();
    return Status::Ok();
  };
  OCR_RETURN_IF_ERROR(ForEachBatch(crops.size(), static_cast<size_t>(options.batch_size), runner,
                                   stop, times, run_batch));
  return results;
}

}  // namespace ocr::pipeline
