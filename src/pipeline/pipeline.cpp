#include "pipeline/pipeline.h"

#include <opencv2/imgproc.hpp>

#include "common/clock.h"
#include "pipeline/geometry.h"
#include "pipeline/word_boxes.h"

namespace ocr::pipeline {

Status ValidateOptions(const OcrOptions& o) {
  auto in = [](double v, double lo, double hi) { return v >= lo && v <= hi; };
  if (!in(o.det.limit_side_len, 32, 8192)) {
    return InvalidArgument("det limit_side_len must be between 32 and 8192");
  }
  if (!in(o.det.db.thresh, 0, 1))
    return InvalidArgument("det thresh must be between 0 and 1");
  if (!in(o.det.db.box_thresh, 0, 1))
    return InvalidArgument("box_thresh must be between 0 and 1");
  if (!in(o.det.db.unclip_ratio, 0.1, 10)) {
    return InvalidArgument("unclip_ratio must be between 0.1 and 10");
  }
  if (!in(o.det.db.max_candidates, 1, 100000)) {
    return InvalidArgument("max_candidates must be between 1 and 100000");
  }
  if (!in(o.cls.thresh, 0, 1))
    return InvalidArgument("cls thresh must be between 0 and 1");
  if (!in(o.cls.batch_size, 1, 64) || !in(o.rec.batch_size, 1, 64)) {
    return InvalidArgument("batch sizes must be between 1 and 64");
  }
  if (!in(o.rec.max_width, 48, 16384)) {
    return InvalidArgument("rec max_width must be between 48 and 16384");
  }
  if (!in(o.rec.min_width, 1, o.rec.max_width) || !in(o.rec.width_multiple, 1, 1024)) {
    return InvalidArgument(
        "rec min_width must be between 1 and max_width, width_multiple "
        "between 1 and 1024");
  }
  if (!in(o.drop_score, 0, 1))
    return InvalidArgument("drop_score must be between 0 and 1");
  return Status::Ok();
}

Pipeline::Pipeline(const ModelSet& models)
    : models_(models),
      detector_(*models.det),
      recognizer_(*models.rec, models.charset, models.rec_height, models.rec_width) {
  if (models.cls)
    classifier_.emplace(*models.cls, models.cls_height, models.cls_width);
}

Status Pipeline::WarmUp() const {
  cv::Mat page(160, 480, CV_8UC3, cv::Scalar(255, 255, 255));
  cv::putText(page, "Warm up 2026", cv::Point(20, 60), cv::FONT_HERSHEY_SIMPLEX, 1.2,
              cv::Scalar(0, 0, 0), 2);
  cv::putText(page, "ONNX Runtime", cv::Point(20, 130), cv::FONT_HERSHEY_SIMPLEX, 1.2,
              cv::Scalar(0, 0, 0), 2);
  const Status status = Run(page, OcrOptions{}).status();
  if (!status.ok()) {
    return Status(StatusCode::kModelLoadFailed,
                  "model set " + models_.name + " fails on a test page: " + status.message());
  }
  return Status::Ok();
}

Result<OcrResult> Pipeline::Run(const cv::Mat& image, const OcrOptions& options,
                                const std::stop_token& stop, TaskRunner* runner) const {
  InlineTaskRunner inline_runner;
  TaskRunner& batches = runner != nullptr ? *runner : inline_runner;
  OcrResult result;
  StageTimes& times = result.times;
  OCR_ASSIGN_OR_RETURN(std::vector<Quad> boxes, detector_.Detect(image, options.det, times, stop));
  if (stop.stop_requested())
    return Cancelled();

  Stopwatch watch;
  std::vector<cv::Mat> crops;
  std::vector<Quad> kept;
  crops.reserve(boxes.size());
  kept.reserve(boxes.size());
  for (const Quad& box : boxes) {
    cv::Mat crop = CropTextLine(image, box);
    if (crop.empty())
      continue;
    crops.push_back(std::move(crop));
    kept.push_back(box);
  }
  times.crop_ms += watch.LapMs();

  std::vector<std::uint8_t> flipped(crops.size(), 0);
  if (options.use_cls && classifier_ && !crops.empty()) {
    OCR_ASSIGN_OR_RETURN(flipped, classifier_->Classify(crops, options.cls, times, batches, stop));
  }
  OCR_ASSIGN_OR_RETURN(std::vector<DecodedText> texts,
                       recognizer_.Recognize(crops, options.rec, times, batches, stop));
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].text.empty() || texts[i].confidence < options.drop_score)
      continue;
    TextLine line{texts[i].text, texts[i].confidence, kept[i], {}};
    if (options.word_boxes)
      line.words = LocateWords(texts[i], kept[i], flipped[i] != 0);
    result.lines.push_back(std::move(line));
  }
  return result;
}

}  // namespace ocr::pipeline
