// Rulings by morphology: ink is what is darker than the paper around it; an opening with a long,
// one-pixel-thin kernel keeps only strokes at least that long in that direction, which text never
// has; the survivors' connected components, joined where a crossing or a light pixel broke them,
// are the rulings.
#include "layout/rulings.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <opencv2/imgproc.hpp>

#include "layout/internal/page_gray.h"

namespace ocr::layout {
namespace {

// Thresholds in units of the page's median text height (h).

// A horizontal ruling is at least this long: longer than any stroke of a glyph (the widest, Han
// characters and em dashes, are about 1 h), shorter than the border of the narrowest column
// worth finding (two characters with padding).
constexpr float kMinHorizontalLength = 2.0F;

// A vertical ruling is at least this long: a one-row cell's border is about 1.3 h (text plus
// padding), while a glyph's tallest stroke is under 1 h (a line's box includes the detector's
// padding around the ink).
constexpr float kMinVerticalLength = 1.2F;

// A stroke thicker than this is a filled area (a shaded row, a bar), not a line.
constexpr float kMaxThickness = 0.5F;

// Pieces of one ruling (broken where another crosses it or by a light pixel) join when their ends
// are this close.
constexpr float kJoinGap = 1.0F;

// Pixels: the least tolerance across a ruling when joining pieces, and the least thickness
// allowed, for pages whose text is tiny.
constexpr float kMinTolerancePx = 2.0F;

using internal::kWorkingTextHeightPx;

// Intensity step (0-255) that makes a pixel ink: darker than the paper around it by this much.
// Light grey rules (#999 on white, a step of 100) pass; paper texture and JPEG noise (a few
// levels, a few tens at worst beside sharp edges) do not.
constexpr double kInkContrast = 40.0;

// The components of `mask` at least `min_length` long along the axis and at most `max_thickness`
// across it, as rulings in `mask`'s pixels.
std::vector<Ruling> Components(const cv::Mat& mask, bool horizontal, float min_length,
                               float max_thickness) {
  cv::Mat labels;
  cv::Mat stats;
  cv::Mat centroids;
  const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
  std::vector<Ruling> out;
  for (int i = 1; i < n; ++i) {
    const auto x = static_cast<float>(stats.at<int>(i, cv::CC_STAT_LEFT));
    const auto y = static_cast<float>(stats.at<int>(i, cv::CC_STAT_TOP));
    const auto w = static_cast<float>(stats.at<int>(i, cv::CC_STAT_WIDTH));
    const auto hgt = static_cast<float>(stats.at<int>(i, cv::CC_STAT_HEIGHT));
    const float length = horizontal ? w : hgt;
    const float thickness = horizontal ? hgt : w;
    if (length < min_length || thickness > max_thickness) {
      continue;
    }
    if (horizontal) {
      const auto cy = static_cast<float>(centroids.at<double>(i, 1));
      out.push_back(Ruling{x, cy, x + w - 1, cy});
    } else {
      const auto cx = static_cast<float>(centroids.at<double>(i, 0));
      out.push_back(Ruling{cx, y, cx, y + hgt - 1});
    }
  }
  return out;
}

// Joins collinear pieces: same position across the axis within `tolerance`, ends at most `gap`
// apart along it.
std::vector<Ruling> Join(std::vector<Ruling> pieces, bool horizontal, float tolerance, float gap) {
  auto across = [horizontal](const Ruling& r) { return horizontal ? r.y0 : r.x0; };
  auto begin = [horizontal](const Ruling& r) { return horizontal ? r.x0 : r.y0; };
  auto end = [horizontal](const Ruling& r) { return horizontal ? r.x1 : r.y1; };
  std::sort(pieces.begin(), pieces.end(), [&](const Ruling& a, const Ruling& b) {
    return begin(a) != begin(b) ? begin(a) < begin(b) : across(a) < across(b);
  });
  std::vector<Ruling> joined;
  std::vector<bool> used(pieces.size(), false);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (used[i]) {
      continue;
    }
    Ruling r = pieces[i];
    float reach = end(r);
    float position = across(r);
    // Pieces are sorted by start, so every continuation of `r` comes after it.
    for (std::size_t j = i + 1; j < pieces.size() && begin(pieces[j]) <= reach + gap; ++j) {
      if (used[j] || std::abs(across(pieces[j]) - position) > tolerance) {
        continue;
      }
      used[j] = true;
      const float length_r = reach - begin(r);
      const float length_j = end(pieces[j]) - begin(pieces[j]);
      // The joined position is the length-weighted mean, so a long piece is not pulled by a stub.
      position = (position * length_r + across(pieces[j]) * length_j) /
                 std::max(length_r + length_j, 1.0F);
      reach = std::max(reach, end(pieces[j]));
    }
    if (horizontal) {
      joined.push_back(Ruling{r.x0, position, reach, position});
    } else {
      joined.push_back(Ruling{position, r.y0, position, reach});
    }
  }
  return joined;
}

}  // namespace

std::vector<Ruling> FindRulings(const cv::Mat& page, float text_height) {
  if (page.empty() || page.depth() != CV_8U || !(text_height >= 1.0F)) {
    return {};
  }
  cv::Mat gray = internal::PageGray(page);
  // Ink is what is darker than the paper around it: the paper's brightness is the brightest
  // value nearby (a window wider than any stroke). A local mean would not do: in a dense cell
  // the text darkens the mean, and a light rule beside it drops out.
  const int window = std::max(5, static_cast<int>(0.5F * text_height) | 1);
  cv::Mat paper;
  cv::dilate(gray, paper, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(window, window)));
  cv::Mat ink;
  cv::subtract(paper, gray, ink);
  cv::threshold(ink, ink, kInkContrast, 255, cv::THRESH_BINARY);
  // Then the mask (not the page, where a thin light rule would fade below the contrast) is
  // reduced: a working pixel is ink when any ink fell in it.
  const float scale = std::min(1.0F, kWorkingTextHeightPx / text_height);
  if (scale < 1.0F) {
    cv::resize(ink, ink, cv::Size(), scale, scale, cv::INTER_AREA);
    cv::threshold(ink, ink, 0, 255, cv::THRESH_BINARY);
  }
  const float h = text_height * scale;

  const int min_h = std::max(3, static_cast<int>(std::lround(kMinHorizontalLength * h)));
  const int min_v = std::max(3, static_cast<int>(std::lround(kMinVerticalLength * h)));
  const float max_thickness = std::max(kMinTolerancePx, kMaxThickness * h);
  const float tolerance = std::max(kMinTolerancePx, h / 6);

  cv::Mat horizontal;
  cv::morphologyEx(ink, horizontal, cv::MORPH_OPEN,
                   cv::getStructuringElement(cv::MORPH_RECT, cv::Size(min_h, 1)));
  cv::Mat vertical;
  cv::morphologyEx(ink, vertical, cv::MORPH_OPEN,
                   cv::getStructuringElement(cv::MORPH_RECT, cv::Size(1, min_v)));

  std::vector<Ruling> rulings =
      Join(Components(horizontal, true, static_cast<float>(min_h), max_thickness), true, tolerance,
           kJoinGap * h);
  std::vector<Ruling> verticals =
      Join(Components(vertical, false, static_cast<float>(min_v), max_thickness), false, tolerance,
           kJoinGap * h);
  rulings.insert(rulings.end(), verticals.begin(), verticals.end());
  for (Ruling& r : rulings) {
    r.x0 /= scale;
    r.y0 /= scale;
    r.x1 /= scale;
    r.y1 /= scale;
  }
  return rulings;
}

}  // namespace ocr::layout
