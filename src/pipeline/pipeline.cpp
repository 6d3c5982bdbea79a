#include "pipeline/pipeline.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "common/check.h"
#include "common/clock.h"
#include "pipeline/geometry.h"
#include "pipeline/model_input.h"
#include "pipeline/rec/second_reading.h"
#include "pipeline/rec/word_spaces.h"
#include "pipeline/turned_lines.h"
#include "pipeline/vertical_chains.h"
#include "pipeline/word_boxes.h"

namespace ocr::pipeline {

Pipeline::Pipeline(const ModelSet& models)
    : models_(models),
      detector_(*models.det, SettingsOf(models.det_part.family)),
      recognizer_(*models.rec, models.charset, models.rec_height, models.rec_width,
                  SettingsOf(models.rec_part.family).rec_normalization) {
  if (models.cls) {
    classifier_.emplace(*models.cls, models.cls_height, models.cls_width,
                        SettingsOf(models.cls_part.family).cls_normalization);
  }
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

namespace {

// The crops recognition reads: the detected lines' (in detection order), then the lines read
// again whole after them (`chains`, crops and boxes from index `detected` on).
struct LineCrops {
  std::vector<cv::Mat> crops;
  std::vector<Quad> boxes;
  size_t detected = 0;
  std::vector<VerticalChain> chains;
  // Per chain: its reading is taken only this sure (a turned line the detector did not find).
  std::vector<float> min_confidence;
};

// A turned line the detector found no line along, boxed by its glyphs alone, is taken only when
// read this sure: the search's glyph shapes make it likely text, not certain (a column of
// specks or a rule's ticks reads as garbage, unsurely).
constexpr float kSureUndetected = 0.9f;
// A crop with less contrast than this between ink and paper (grey levels) holds no print.
constexpr int kMinStretchedContrast = 10;

// `crop` with its grey levels stretched from its ink (the 2nd percentile) to its paper (the
// 90th) to the full range: the recognizer reads faint print (a numbering stamp's grey ink, a
// quarter of the way to the paper) more surely at a print's contrast.
cv::Mat FullContrast(cv::Mat crop) {
  const GreyHistogram histogram = GreyHistogramOf(crop);
  const auto pixels = static_cast<double>(crop.total());
  const int ink = GreyLevelAt(histogram, static_cast<std::int64_t>(0.02 * pixels));
  const int paper = GreyLevelAt(histogram, static_cast<std::int64_t>(0.9 * pixels));
  if (paper - ink >= kMinStretchedContrast)
    StretchLevels(crop, ink, paper);
  return crop;
}

// The detected lines' crops, then those of the lines read again whole: turned lines found in the
// unread ink, with the pieces of them detection found, and (`join_vertical_pieces`) chains of
// pieces none of those covers. Boxes whose crop is empty are left out.
LineCrops CropLines(const cv::Mat& image, const std::vector<Quad>& boxes, const TurnedLines& turned,
                    bool join_vertical_pieces) {
  LineCrops out;
  out.crops.reserve(boxes.size());
  out.boxes.reserve(boxes.size());
  for (const Quad& box : boxes) {
    cv::Mat crop = CropTextLine(image, box);
    if (crop.empty())
      continue;
    out.crops.push_back(std::move(crop));
    out.boxes.push_back(box);
  }
  out.detected = out.crops.size();
  std::vector<VerticalChain> wholes;
  std::vector<float> min_confidence;
  for (const Quad& line : turned.detected) {
    wholes.push_back({BoxesInside(line, out.boxes), line});
    min_confidence.push_back(0);
  }
  for (const Quad& line : turned.undetected) {
    wholes.push_back({BoxesInside(line, out.boxes), line});
    min_confidence.push_back(kSureUndetected);
  }
  if (join_vertical_pieces) {
    for (VerticalChain& chain : VerticalChains(out.boxes)) {
      const bool covered = std::any_of(wholes.begin(), wholes.end(), [&](const VerticalChain& w) {
        return std::find_first_of(w.members.begin(), w.members.end(), chain.members.begin(),
                                  chain.members.end()) != w.members.end();
      });
      if (!covered) {
        wholes.push_back(std::move(chain));
        min_confidence.push_back(0);
      }
    }
  }
  for (size_t k = 0; k < wholes.size(); ++k) {
    cv::Mat crop = CropTextLine(image, wholes[k].box);
    if (crop.empty())
      continue;
    if (min_confidence[k] > 0)
      crop = FullContrast(crop);
    out.crops.push_back(std::move(crop));
    out.boxes.push_back(wholes[k].box);
    out.chains.push_back(std::move(wholes[k]));
    out.min_confidence.push_back(min_confidence[k]);
  }
  return out;
}

// Unsure small lines read again wider (second_reading.h); each keeps the surer reading.
Status ReadUnsureLinesAgain(const TextRecognizer& recognizer, const std::vector<cv::Mat>& crops,
                            std::vector<DecodedText>& texts, const OcrOptions& options,
                            StageTimes& times, TaskRunner& batches, const std::stop_token& stop) {
  const std::vector<size_t> again = LinesToReadAgain(crops, texts, options.drop_score);
  if (again.empty())
    return Status::Ok();
  std::vector<cv::Mat> widened;
  widened.reserve(again.size());
  for (size_t i : again)
    widened.push_back(Widened(crops[i]));
  OCR_ASSIGN_OR_RETURN(std::vector<DecodedText> second,
                       recognizer.Recognize(widened, options.rec, times, batches, stop));
  for (size_t k = 0; k < again.size(); ++k) {
    const size_t i = again[k];
    KeepTheSurer(texts[i], std::move(second[k]), crops[i].cols, widened[k].cols);
  }
  return Status::Ok();
}

// The direction model judges a turned line by a few glyphs, and digits look alike either way up:
// read upside down, a document number up a margin comes out as other digits at a lower
// confidence. The tall lines' vote (cls/text_classifier.h) does not help there: the few tall
// boxes of an upright page are the number and bits of rules and marks, which may outvote it. So
// where a page has at most kFewTallLines tall lines, each at least kSeveralGlyphs times as long as
// it is high and read less surely than kSureDirection is read both ways and keeps the surer
// reading. A page turned a quarter has more, and its vote decides them; a glyph or two (a 6, a 9)
// read as well either way up and keep the direction model's call; a line read this surely was
// read the right way up.
constexpr size_t kFewTallLines = 12;
constexpr int kSeveralGlyphs = 2;
constexpr float kSureDirection = 0.95f;

Status ReadFewTurnedLinesBothWays(const TextRecognizer& recognizer, LineCrops& lines,
                                  std::vector<DecodedText>& texts,
                                  std::vector<std::uint8_t>& flipped, const OcrOptions& options,
                                  StageTimes& times, TaskRunner& batches,
                                  const std::stop_token& stop) {
  size_t tall = 0;
  std::vector<size_t> read_again;
  for (size_t i = 0; i < lines.boxes.size(); ++i) {
    const CropGeometry geometry = CropGeometryOf(lines.boxes[i]);
    if (!geometry.rotated90)
      continue;
    ++tall;
    if (geometry.width() >= kSeveralGlyphs * geometry.height() &&
        texts[i].confidence < kSureDirection)
      read_again.push_back(i);
  }
  if (read_again.empty() || tall > kFewTallLines)
    return Status::Ok();
  std::vector<cv::Mat> turned(read_again.size());
  for (size_t k = 0; k < read_again.size(); ++k)
    cv::rotate(lines.crops[read_again[k]], turned[k], cv::ROTATE_180);
  OCR_ASSIGN_OR_RETURN(std::vector<DecodedText> other,
                       recognizer.Recognize(turned, options.rec, times, batches, stop));
  for (size_t k = 0; k < read_again.size(); ++k) {
    const size_t i = read_again[k];
    if (other[k].confidence <= texts[i].confidence)
      continue;
    texts[i] = std::move(other[k]);
    lines.crops[i] = std::move(turned[k]);
    flipped[i] ^= 1;
  }
  return Status::Ok();
}

// Turned text lower than this (px), half the height the detector finds lines best at, is also
// detected at two and three times its size.
constexpr double kSmallTurnedText = kAutoBoxHeight / 2;

// A whole line's reading this sure that spells its pieces' readings is taken over theirs.
constexpr float kSureWhole = 0.9f;

// Whether `whole` holds each non-empty reading of `members` (spaces aside: the pieces of a line
// split it at its spaces).
bool Spells(const DecodedText& whole, const std::vector<DecodedText>& texts,
            std::span<const size_t> members) {
  auto without_spaces = [](std::string text) {
    std::erase(text, ' ');
    return text;
  };
  const std::string all = without_spaces(whole.text);
  return std::all_of(members.begin(), members.end(), [&](size_t m) {
    const std::string piece = without_spaces(texts[m].text);
    return piece.empty() || all.find(piece) != std::string::npos;
  });
}

// Which reading stands where: a whole line's reading replaces its pieces', in the first piece's
// place, when the recognizer is at least as sure of it as of theirs (their characters' mean
// confidence), or when it spells every piece's reading and is sure of itself: the whole then
// agrees with the pieces and reads what they missed, as a document number found whole turned
// upright reads the letters before the digits the first pass found. One without pieces comes
// after the detected lines.
struct LineOrder {
  std::vector<std::uint8_t> replaced;  // per detected line: a whole's reading replaces it
  std::vector<size_t> whole_at;        // per detected line: 1 + the whole's crop read first there
  std::vector<size_t> after;           // crops of wholes without pieces, read last
};

LineOrder OrderWholeLines(const LineCrops& lines, const std::vector<DecodedText>& texts) {
  LineOrder order{
      std::vector<std::uint8_t>(lines.detected, 0), std::vector<size_t>(lines.detected, 0), {}};
  for (size_t k = 0; k < lines.chains.size(); ++k) {
    const VerticalChain& chain = lines.chains[k];
    const DecodedText& whole = texts[lines.detected + k];
    double sum = 0;
    size_t chars = 0;
    for (size_t m : chain.members) {
      sum += static_cast<double>(texts[m].confidence) *
             static_cast<double>(texts[m].char_offsets.size());
      chars += texts[m].char_offsets.size();
    }
    const double pieces = chars > 0 ? sum / static_cast<double>(chars) : 0.0;
    const bool surer = whole.confidence >= pieces;
    const bool agrees = whole.confidence >= kSureWhole && Spells(whole, texts, chain.members);
    if (whole.text.empty() || whole.confidence < lines.min_confidence[k] || !(surer || agrees))
      continue;
    if (chain.members.empty()) {
      order.after.push_back(lines.detected + k);
      continue;
    }
    for (size_t m : chain.members)
      order.replaced[m] = 1;
    order.whole_at[*std::min_element(chain.members.begin(), chain.members.end())] =
        lines.detected + k + 1;
  }
  return order;
}

}  // namespace

Result<OcrResult> Pipeline::Run(const cv::Mat& image, const OcrOptions& options,
                                const std::stop_token& stop, TaskRunner* runner) const {
  OCR_CHECK(image.type() == CV_8UC3 && !image.empty());
  InlineTaskRunner inline_runner;
  TaskRunner& batches = runner != nullptr ? *runner : inline_runner;
  OcrResult result;
  StageTimes& times = result.times;
  OCR_ASSIGN_OR_RETURN(std::vector<Quad> boxes, detector_.Detect(image, options.det, times, stop));
  if (stop.stop_requested())
    return Cancelled();
  TurnedLines turned;
  if (options.find_turned_lines) {
    OCR_ASSIGN_OR_RETURN(turned, FindTurnedLines(image, boxes, options.det, times, stop));
  }

  Stopwatch watch;
  // Not const: the classifier turns the crops it finds upside down.
  LineCrops lines = CropLines(image, boxes, turned, options.join_vertical_pieces);
  times.crop_ms += watch.LapMs();

  std::vector<std::uint8_t> flipped(lines.crops.size(), 0);
  if (options.use_cls && classifier_ && !lines.crops.empty()) {
    std::vector<std::uint8_t> vertical(lines.boxes.size());
    for (size_t i = 0; i < lines.boxes.size(); ++i)
      vertical[i] = CropGeometryOf(lines.boxes[i]).rotated90 ? 1 : 0;
    OCR_ASSIGN_OR_RETURN(
        flipped, classifier_->Classify(lines.crops, vertical, options.cls, times, batches, stop));
  }
  OCR_ASSIGN_OR_RETURN(std::vector<DecodedText> texts,
                       recognizer_.Recognize(lines.crops, options.rec, times, batches, stop));
  if (options.use_cls && classifier_ && options.cls.page_vote) {
    OCR_RETURN_IF_ERROR(ReadFewTurnedLinesBothWays(recognizer_, lines, texts, flipped, options,
                                                   times, batches, stop));
  }
  if (options.read_unsure_lines_again) {
    OCR_RETURN_IF_ERROR(
        ReadUnsureLinesAgain(recognizer_, lines.crops, texts, options, times, batches, stop));
  }
  if (options.text_normalization) {
    for (DecodedText& text : texts)
      InsertWordSpaces(text);
  }

  const LineOrder order = OrderWholeLines(lines, texts);
  auto emit = [&](size_t i) {
    if (texts[i].text.empty() || texts[i].confidence < options.drop_score)
      return;
    TextLine line{texts[i].text, texts[i].confidence, lines.boxes[i], {}};
    if (options.read_words)
      line.words = LocateWords(texts[i], lines.boxes[i], flipped[i] != 0);
    result.lines.push_back(std::move(line));
  };
  for (size_t i = 0; i < lines.detected; ++i) {
    if (order.whole_at[i] != 0)
      emit(order.whole_at[i] - 1);
    if (order.replaced[i] == 0)
      emit(i);
  }
  for (size_t i : order.after)
    emit(i);
  return result;
}

Result<TurnedLines> Pipeline::FindTurnedLines(const cv::Mat& image, std::span<const Quad> boxes,
                                              const DetOptions& options, StageTimes& times,
                                              const std::stop_token& stop) const {
  Stopwatch watch;
  const std::vector<TurnedRegion> regions = TurnedLineRegions(image, boxes);
  times.det_post_ms += watch.LapMs();
  // A region is a strip a few text heights across, read at its own scale as the default reading
  // does (a request's minimum side would blow it up tens of times).
  DetOptions turned = options;
  turned.limit_type = LimitType::kAuto;
  std::vector<Quad> found;
  std::vector<Quad> undetected;
  for (const TurnedRegion& region : regions) {
    const size_t before = found.size();
    // Turned one way a line reads upright, the other way upside down; the detector finds some
    // lines whole only one of the two ways. Small print (a 9-point number at 100 dpi is 8 to 10
    // px high) it finds whole at its own size for some lines and only at two or three times it
    // (24 px, kAutoBoxHeight) for others, faint print among them: such a region is detected at
    // all three sizes.
    const bool small = region.text_height < kSmallTurnedText;
    for (const bool clockwise : {true, false}) {
      cv::Mat upright;
      cv::rotate(image(region.rect), upright,
                 clockwise ? cv::ROTATE_90_CLOCKWISE : cv::ROTATE_90_COUNTERCLOCKWISE);
      for (const float zoom : {1.0f, 2.0f, 3.0f}) {
        if (zoom > 1 && !small)
          continue;
        cv::Mat input = upright;
        if (zoom > 1)
          cv::resize(upright, input, cv::Size(), zoom, zoom, cv::INTER_CUBIC);
        OCR_ASSIGN_OR_RETURN(std::vector<Quad> lines, detector_.Detect(input, turned, times, stop));
        for (Quad line : lines) {
          for (Point& p : line)
            p = {p.x / zoom, p.y / zoom};
          const Quad box = FromTurnedRegion(line, region.rect, clockwise);
          if (CropGeometryOf(box).rotated90)
            found.push_back(box);
        }
      }
    }
    // Faint or mottled print the detector does not find at any size is read by its glyphs' box.
    if (!RunsAlong(std::span(found).subspan(before), region.line))
      undetected.push_back(GlyphLine(region));
  }
  return TurnedLines{LongestOfOverlapping(std::move(found)), std::move(undetected)};
}

}  // namespace ocr::pipeline
