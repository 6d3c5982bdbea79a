#include "pipeline/turned_lines.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include <opencv2/imgproc.hpp>

#include "pipeline/geometry.h"

namespace ocr::pipeline {
namespace {

constexpr double kInkContrast = 20;     // grey levels under the local mean
constexpr double kAnalysisHeight = 12;  // px: larger text is searched on a smaller copy
constexpr double kMinWidth = 0.5;       // x h
constexpr double kMaxWidth = 2.5;       // x h
constexpr double kMinAspect = 4;        // height / width
constexpr double kMinHeight = 3;        // x h
// A turned glyph is at least a third of a text height across the column (its height) and a
// sixth along it: a digit is about half as wide as it is high, and a document number is often
// set smaller than the body text. A 1 or an l does not count; neither does a speck.
constexpr double kGlyphAcross = 0.3;  // x h
constexpr double kGlyphAlong = 0.15;  // x h
constexpr double kMarkAcross = 0.1;   // x h: a fragment of a glyph, not a speck or a streak
constexpr int kMinGlyphs = 3;
constexpr double kMinRunFill = 0.3;    // of a mark's box: glyphs run together
constexpr double kMinGlyphSpan = 0.5;  // of the rows from the first glyph to the last
constexpr double kMaxFill = 0.6;       // a solid bar is not text
constexpr double kPadAcross = 1.5;     // x h
constexpr double kPadAlong = 1.0;      // x h
constexpr size_t kMaxRegions = 8;
// Gaps closed along a column (x h): between the glyphs of a turned line, and its word spaces too
// (a stamped number's space is about a text height wide, as wide as the first closing bridges).
constexpr double kGlyphGap = 1.0;
constexpr double kWordSpace = 1.5;
constexpr float kGlyphLineAcross = 0.2f;  // x h
constexpr float kGlyphLineAlong = 0.5f;   // x h

// The glyph-sized marks of one column (`mask`: its ink): their bounding rectangle, or an empty
// one when they are too few (a long mark counts as the glyphs it is long), cover too little of the
// rows between the first and the last, or lie in a box not shaped like a turned line (its tallness
// is measured on the glyphs, so that a speck beside the column does not widen it). A faint stamp
// inks its glyphs unevenly, in fragments: the rows any mark a tenth of the text's height across
// covers count, and those beyond the glyphs (a 1, the ends of a mottled number) are the line's
// too.
struct ColumnGlyphs {
  cv::Rect box;   // the glyphs
  cv::Rect line;  // the glyphs' columns, from the first mark along them to the last
};

ColumnGlyphs GlyphsOf(const cv::Mat& mask, double h) {
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
  std::vector<std::uint8_t> covered(static_cast<size_t>(mask.rows), 0);
  std::vector<cv::Rect> marks;
  int glyphs = 0;
  cv::Rect box;
  for (int i = 1; i < n; ++i) {
    const cv::Rect r(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                     stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
    if (r.width < kMarkAcross * h)
      continue;
    marks.push_back(r);
    std::fill(covered.begin() + r.y, covered.begin() + r.y + r.height, 1);
    if (r.width < kGlyphAcross * h || r.height < kGlyphAlong * h)
      continue;
    // Heavy print runs a number's digits into one mark: one as long along the column as N
    // glyphs are high, and as dense as print, counts as N of them. A rule with ticks or specks
    // beside it is long too, but its ink fills a tenth of its box.
    box = glyphs == 0 ? r : (box | r);
    const bool dense = stats.at<int>(i, cv::CC_STAT_AREA) >= kMinRunFill * r.area();
    glyphs +=
        dense ? std::max(1, static_cast<int>(std::lround(static_cast<double>(r.height) / r.width)))
              : 1;
  }
  if (glyphs < kMinGlyphs)
    return {};
  const auto span =
      static_cast<double>(std::count(covered.begin() + box.y, covered.begin() + box.br().y, 1));
  if (span < kMinGlyphSpan * box.height || box.height < kMinAspect * box.width)
    return {};
  int top = box.y;
  int bottom = box.br().y;
  for (const cv::Rect& r : marks) {
    if (r.x < box.br().x && r.br().x > box.x) {
      top = std::min(top, r.y);
      bottom = std::max(bottom, r.br().y);
    }
  }
  return {box, cv::Rect(box.x, top, box.width, bottom - top)};
}

// The page's ink at `scale` (text `h` pixels high there), with the upright lines' boxes blanked:
// where a turned line can still be.
cv::Mat InkBesideUprightLines(const cv::Mat& image, std::span<const Quad> boxes, double scale,
                              double h) {
  cv::Mat grey;
  cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
  if (scale < 1)
    cv::resize(grey, grey, cv::Size(), scale, scale, cv::INTER_AREA);
  // Ink: darker than the mean of a window twice the text's height, which follows shading.
  cv::Mat mean, ink;
  const int window = 2 * static_cast<int>(std::lround(h)) + 1;
  cv::blur(grey, mean, cv::Size(window, window), cv::Point(-1, -1), cv::BORDER_REPLICATE);
  cv::subtract(mean, grey, ink);
  cv::threshold(ink, ink, kInkContrast, 255, cv::THRESH_BINARY);
  for (const Quad& q : boxes) {
    if (CropGeometryOf(q).rotated90)
      continue;
    std::array<cv::Point, 4> corners;
    for (size_t i = 0; i < 4; ++i)
      corners[i] = cv::Point(static_cast<int>(std::lround(q[i].x * scale)),
                             static_cast<int>(std::lround(q[i].y * scale)));
    cv::fillConvexPoly(ink, corners.data(), 4, cv::Scalar(0));
  }
  return ink;
}

// The search's ink at its scale: text `h` pixels high there, `page_h` on the page.
struct InkMap {
  cv::Mat ink;
  double h = 0;
  double scale = 1;
  double page_h = 0;
  cv::Rect page;
};

// The columns of `map`'s ink shaped like a turned line once the gaps along a column up to
// `along` x h, and those across it up to a third of h (between a glyph's strokes), are closed.
std::vector<TurnedRegion> ColumnsOf(const InkMap& map, double along) {
  const double h = map.h;
  const int across_px = std::max(1, static_cast<int>(std::lround(h / 3)));
  const int along_px = std::max(1, static_cast<int>(std::lround(along * h)));
  cv::Mat closed;
  cv::morphologyEx(map.ink, closed, cv::MORPH_CLOSE,
                   cv::getStructuringElement(cv::MORPH_RECT, cv::Size(across_px, along_px)));
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(closed, labels, stats, centroids, 8, CV_32S);

  std::vector<TurnedRegion> regions;
  // `rect` of the analysis image on the page, padded by `pad_across` and `pad_along` page pixels,
  // clipped.
  auto to_page = [&](const cv::Rect& rect, double pad_across, double pad_along) {
    const cv::Point tl(static_cast<int>(std::floor(rect.x / map.scale - pad_across)),
                       static_cast<int>(std::floor(rect.y / map.scale - pad_along)));
    const cv::Point br(static_cast<int>(std::ceil(rect.br().x / map.scale + pad_across)),
                       static_cast<int>(std::ceil(rect.br().y / map.scale + pad_along)));
    return cv::Rect(tl, br) & map.page;
  };
  for (int i = 1; i < n; ++i) {
    const cv::Rect r(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                     stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
    if (r.width < kMinWidth * h || r.width > kMaxWidth * h || r.height < kMinHeight * h)
      continue;
    cv::Mat mine = labels(r) == i;
    cv::bitwise_and(mine, map.ink(r), mine);
    if (cv::countNonZero(mine) > kMaxFill * r.area())
      continue;
    const ColumnGlyphs column = GlyphsOf(mine, h);
    if (column.box.empty())
      continue;
    const cv::Rect glyphs = column.box + r.tl();
    const cv::Rect region = to_page(glyphs, kPadAcross * map.page_h, kPadAlong * map.page_h);
    if (!region.empty())
      regions.push_back({region, glyphs.width / map.scale, to_page(column.line + r.tl(), 0, 0)});
  }
  return regions;
}

}  // namespace

std::vector<TurnedRegion> TurnedLineRegions(const cv::Mat& image, std::span<const Quad> boxes) {
  if (boxes.empty() || image.empty())
    return {};
  std::vector<float> sides;
  sides.reserve(boxes.size());
  size_t tall = 0;
  for (const Quad& q : boxes) {
    const Extent e = ExtentOf(q);
    sides.push_back(std::min(e.width(), e.height()));
    tall += CropGeometryOf(q).rotated90 ? 1 : 0;
  }
  if (2 * tall >= boxes.size())
    return {};
  std::nth_element(sides.begin(), sides.begin() + static_cast<std::ptrdiff_t>(sides.size() / 2),
                   sides.end());
  const double page_h = sides[sides.size() / 2];
  if (page_h < 1)
    return {};
  const double scale = page_h > 2 * kAnalysisHeight ? kAnalysisHeight / page_h : 1.0;
  const double h = page_h * scale;

  const InkMap map{InkBesideUprightLines(image, boxes, scale, h), h, scale, page_h,
                   cv::Rect(0, 0, image.cols, image.rows)};
  // A number split at its word space is two columns at the glyphs' closing, each perhaps under
  // kMinHeight, and one at the word spaces'; where both find a column, the taller stands.
  std::vector<TurnedRegion> regions = ColumnsOf(map, kGlyphGap);
  const std::vector<TurnedRegion> spaced = ColumnsOf(map, kWordSpace);
  regions.insert(regions.end(), spaced.begin(), spaced.end());
  std::stable_sort(
      regions.begin(), regions.end(),
      [](const TurnedRegion& a, const TurnedRegion& b) { return a.rect.height > b.rect.height; });
  std::vector<TurnedRegion> kept;
  for (const TurnedRegion& region : regions) {
    const bool seen = std::any_of(kept.begin(), kept.end(), [&](const TurnedRegion& k) {
      return 2 * (k.rect & region.rect).area() >= std::min(k.rect.area(), region.rect.area());
    });
    if (!seen && kept.size() < kMaxRegions)
      kept.push_back(region);
  }
  return kept;
}

bool RunsAlong(std::span<const Quad> lines, const cv::Rect& glyphs) {
  return std::any_of(lines.begin(), lines.end(), [&](const Quad& q) {
    const Extent e = ExtentOf(q);
    const bool across =
        e.x0 < static_cast<float>(glyphs.br().x) && e.x1 > static_cast<float>(glyphs.x);
    const float along = std::min(e.y1, static_cast<float>(glyphs.br().y)) -
                        std::max(e.y0, static_cast<float>(glyphs.y));
    return across && along >= 0.5f * static_cast<float>(glyphs.height);
  });
}

Quad GlyphLine(const TurnedRegion& region) {
  const auto h = static_cast<float>(region.text_height);
  const auto x0 = static_cast<float>(region.line.x) - kGlyphLineAcross * h;
  const auto x1 = static_cast<float>(region.line.br().x) + kGlyphLineAcross * h;
  const auto y0 = static_cast<float>(region.line.y) - kGlyphLineAlong * h;
  const auto y1 = static_cast<float>(region.line.br().y) + kGlyphLineAlong * h;
  const cv::Rect2f page(region.rect);
  return {Point{std::max(x0, page.x), std::max(y0, page.y)},
          Point{std::min(x1, page.br().x), std::max(y0, page.y)},
          Point{std::min(x1, page.br().x), std::min(y1, page.br().y)},
          Point{std::max(x0, page.x), std::min(y1, page.br().y)}};
}

Quad FromTurnedRegion(const Quad& box, const cv::Rect& region, bool clockwise) {
  // cv::rotate clockwise sends (x, y) to (height - y, x); counter-clockwise to (y, width - x).
  const auto w = static_cast<float>(region.width);
  const auto h = static_cast<float>(region.height);
  const auto ox = static_cast<float>(region.x);
  const auto oy = static_cast<float>(region.y);
  Quad page;
  for (size_t i = 0; i < 4; ++i) {
    const Point& p = box[i];
    page[i] = clockwise ? Point{ox + p.y, oy + h - p.x} : Point{ox + w - p.y, oy + p.x};
  }
  return OrderClockwise(page);
}

std::vector<Quad> LongestOfOverlapping(std::vector<Quad> boxes) {
  auto length = [](const Quad& q) {
    const Extent e = ExtentOf(q);
    return std::max(e.width(), e.height());
  };
  std::stable_sort(boxes.begin(), boxes.end(),
                   [&](const Quad& a, const Quad& b) { return length(a) > length(b); });
  std::vector<Quad> kept;
  for (const Quad& q : boxes) {
    const Extent e = ExtentOf(q);
    const bool overlaps = std::any_of(kept.begin(), kept.end(), [&](const Quad& k) {
      const Extent o = ExtentOf(k);
      return OverlapArea(e, o) >= 0.5f * std::min(e.area(), o.area());
    });
    if (!overlaps)
      kept.push_back(q);
  }
  return kept;
}

std::vector<size_t> BoxesInside(const Quad& line, std::span<const Quad> boxes) {
  const Extent outer = ExtentOf(line);
  std::vector<size_t> inside;
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Extent e = ExtentOf(boxes[i]);
    if (e.area() > 0 && OverlapArea(e, outer) >= 0.5f * e.area())
      inside.push_back(i);
  }
  return inside;
}

}  // namespace ocr::pipeline
