#include "pipeline/rec/blank_gaps.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <opencv2/imgproc.hpp>

#include "common/script.h"

namespace ocr::pipeline {
namespace {

// Paper and the darkest (or lightest) print must differ by this much (of 255).
constexpr int kMinContrast = 255 / 6;
// A pixel is ink once it is this share of the way from the paper to the print: light or coloured
// print (a table's blue citation numbers, a thin dash) is ink as much as black text.
constexpr double kInkShare = 0.3;
// Spans must spare at least this share of the crop's width, and two crop heights.
constexpr double kMinSaving = 0.1;
constexpr double kMinSavingHeights = 2.0;

// The grey level below which `share` of the `total` pixels counted in `histogram` lie.
int Percentile(const cv::Mat& histogram, int total, double share) {
  const auto wanted = static_cast<float>(share * total);
  float seen = 0;
  for (int level = 0; level < 256; ++level) {
    seen += histogram.at<float>(level);
    if (seen > wanted)
      return level;
  }
  return 255;
}

// Per column: whether it holds ink. Empty when the crop shows no clear print.
std::vector<std::uint8_t> InkedColumns(const cv::Mat& crop) {
  cv::Mat grey;
  cv::cvtColor(crop, grey, cv::COLOR_BGR2GRAY);
  cv::Mat histogram;
  const int channels[] = {0};
  const int bins[] = {256};
  const float range[] = {0, 256};
  const float* ranges[] = {range};
  cv::calcHist(&grey, 1, channels, cv::Mat(), histogram, 1, bins, ranges);
  const int total = grey.rows * grey.cols;
  // The paper is what most of a line's pixels show; the print is at one end of the range.
  const int paper = Percentile(histogram, total, 0.5);
  const int darkest = Percentile(histogram, total, 0.02);
  const int lightest = Percentile(histogram, total, 0.98);
  const bool dark_print = paper - darkest >= lightest - paper;
  const int contrast = dark_print ? paper - darkest : lightest - paper;
  if (contrast < kMinContrast)
    return {};
  const auto reach = static_cast<int>(kInkShare * contrast);
  const int min_pixels = crop.rows >= 16 ? 2 : 1;
  std::vector<std::uint8_t> inked(static_cast<size_t>(crop.cols), 0);
  std::vector<int> counts(static_cast<size_t>(crop.cols), 0);
  for (int y = 0; y < grey.rows; ++y) {
    const auto* row = grey.ptr<std::uint8_t>(y);
    for (int x = 0; x < grey.cols; ++x) {
      const int away = dark_print ? paper - row[x] : row[x] - paper;
      counts[static_cast<size_t>(x)] += away > reach ? 1 : 0;
    }
  }
  for (size_t x = 0; x < inked.size(); ++x)
    inked[x] = counts[x] >= min_pixels ? 1 : 0;
  return inked;
}

// Whether the cut between these two characters is written as a space: not between two
// characters of scripts written without word spaces (CJK, full-width punctuation), whose wide
// gaps are letter-spacing ("检  验"), as rec/word_spaces.h never writes one there either.
bool SpaceBetween(std::string_view before, std::string_view after) {
  auto latin = [](std::string_view c) {
    const ScriptClass k = ClassifyScript(c);
    return k == ScriptClass::kLatinLetter || k == ScriptClass::kLatinMark;
  };
  return latin(before) || latin(after);
}

}  // namespace

std::vector<InkSpan> InkSpans(const cv::Mat& crop, float min_gap) {
  // Returned by value at each exit, so it is not const (a const local cannot be moved).
  std::vector<InkSpan> whole = {InkSpan{0, crop.cols}};
  if (min_gap <= 0 || crop.empty())
    return whole;
  const std::vector<std::uint8_t> inked = InkedColumns(crop);
  if (inked.empty())
    return whole;
  const int width = crop.cols;
  const auto height = static_cast<double>(crop.rows);
  const int pad = static_cast<int>(std::lround(kInkPadding * height));
  const auto gap = static_cast<int>(std::ceil(min_gap * height));
  std::vector<InkSpan> spans;
  int x = 0;
  while (x < width) {
    while (x < width && inked[static_cast<size_t>(x)] == 0)
      ++x;
    if (x == width)
      break;
    // A span runs from its first inked column to the last one before a gap of `gap` columns.
    const int first = x;
    int last = x;
    while (x < width) {
      if (inked[static_cast<size_t>(x)] != 0) {
        last = x;
      } else if (x - last >= gap) {
        break;
      }
      ++x;
    }
    spans.push_back({std::max(0, first - pad), std::min(width, last + 1 + pad)});
  }
  int kept = 0;
  for (const InkSpan& s : spans)
    kept += s.x1 - s.x0;
  const double spared = width - kept;
  if (spans.empty() || spared < kMinSaving * width || spared < kMinSavingHeights * height)
    return whole;
  return spans;
}

DecodedText JoinSpans(std::span<const DecodedText> pieces, std::span<const InkSpan> spans) {
  DecodedText out;
  const size_t n = std::min(pieces.size(), spans.size());
  for (size_t i = 0; i < n; ++i) {
    if (!pieces[i].text.empty() && pieces[i].column_width > 0) {
      out.column_width = pieces[i].column_width;
      break;
    }
  }
  if (out.column_width <= 0)
    return out;
  double sum = 0;
  size_t kept = 0;
  float previous_end = 0;  // the last piece's right edge, in crop pixels
  for (size_t i = 0; i < n; ++i) {
    const DecodedText& piece = pieces[i];
    if (piece.text.empty())
      continue;
    const auto offset = static_cast<float>(spans[i].x0);
    auto column = [&](float x) { return static_cast<int>(std::lround(x / out.column_width)); };
    const std::string_view last_char =
        out.char_offsets.empty()
            ? std::string_view()
            : std::string_view(out.text).substr(static_cast<size_t>(out.char_offsets.back()));
    const std::string_view first_char =
        piece.char_offsets.size() > 1
            ? std::string_view(piece.text).substr(0, static_cast<size_t>(piece.char_offsets[1]))
            : std::string_view(piece.text);
    if (!out.text.empty() && SpaceBetween(last_char, first_char)) {
      // The cut is a word space, placed midway across the gap.
      const float middle = (previous_end + offset) / 2;
      out.char_offsets.push_back(static_cast<int>(out.text.size()));
      out.text += ' ';
      out.columns.push_back(column(middle));
      out.char_confidences.push_back(1.0f);
      out.space_before.push_back(0.0f);
      out.blanks_before.push_back(0);
    }
    const int base = static_cast<int>(out.text.size());
    for (size_t k = 0; k < piece.char_offsets.size(); ++k) {
      out.char_offsets.push_back(base + piece.char_offsets[k]);
      out.columns.push_back(
          column(offset + static_cast<float>(piece.columns[k]) * piece.column_width));
      out.char_confidences.push_back(piece.char_confidences[k]);
      out.space_before.push_back(piece.space_before[k]);
      out.blanks_before.push_back(piece.blanks_before[k]);
    }
    out.text += piece.text;
    sum += static_cast<double>(piece.confidence) * static_cast<double>(piece.char_offsets.size());
    kept += piece.char_offsets.size();
    previous_end = static_cast<float>(spans[i].x1);
  }
  if (kept > 0)
    out.confidence = static_cast<float>(sum / static_cast<double>(kept));
  return out;
}

}  // namespace ocr::pipeline
