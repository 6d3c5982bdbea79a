// A second, wider reading of small lines the recognizer is unsure of. A line under 24 px is
// scaled more than twice up to the recognizer's 48 px, and its letters get 2 to 3 CTC columns
// each: a doubled letter and a word gap each need a blank column of their own, and at that pitch
// one of them goes without ("call the" read "callthe" from the columns `c _ a l l _ l t` on a
// 100-dpi fax). The same crop 1.25 times wider gives every character more columns. It reads
// blurred 100-dpi scans much better and clean small renders slightly worse
// (docs/benchmarks/accuracy.md, "A second, wider reading"), so it is only a second opinion: the
// recognizer's confidence picks between the two readings, and only lines it read with less than
// 0.85 pay for one.
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <vector>

#include <opencv2/core/mat.hpp>

#include "pipeline/rec/ctc_decode.h"

namespace ocr::pipeline {

inline constexpr int kSmallLineHeight = 24;          // crop rows under this are small print
inline constexpr float kUnsureConfidence = 0.85f;    // a reading under this is read again
inline constexpr double kSecondReadingWidth = 1.25;  // the second crop's width over the first's

// The lines read again: those whose crop is under kSmallLineHeight rows and whose reading's
// confidence is under kUnsureConfidence but not under `kept_from`, the confidence a line needs to
// be kept at all (OcrOptions::drop_score): a second opinion on what was read, not a second chance
// for what was not (specks and rules the first reading dropped come back as "口" or "WW").
// REQUIRES: crops.size() == readings.size().
std::vector<size_t> LinesToReadAgain(std::span<const cv::Mat> crops,
                                     std::span<const DecodedText> readings, float kept_from);

// `crop` kSecondReadingWidth times wider, its height unchanged (bilinear, as the recognizer's
// own resize).
cv::Mat Widened(const cv::Mat& crop);

// Keeps `second`, the reading of Widened(crop), in `first`'s place where the recognizer is surer
// of it. Its columns are mapped back to the crop's pixels (`crop_width` against the widened
// crop's `widened_width`), so word boxes land where they did.
void KeepTheSurer(DecodedText& first, DecodedText second, int crop_width, int widened_width);

}  // namespace ocr::pipeline
