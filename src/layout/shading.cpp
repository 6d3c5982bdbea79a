// Bands by grey level: a pixel is shaded when it is clearly darker than the brightest paper a few
// rows above or below it (text is too, which is why the shape decides); a horizontal closing
// fills the light strokes of text set on a dark band, and an opening with a rectangle a row tall
// and a few characters wide keeps what is filled like a row background (text never is). Each
// survivor is a band when its fill is even and the paper just outside its top and bottom edges is
// lighter than the fill: a band's edge is a real change of background, not where the search window
// ran out. Pieces of one band that dense light text cut apart are joined.
#include "layout/shading.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "layout/internal/page_gray.h"

namespace ocr::layout {
namespace {

// Thresholds in units of the page's median text height (h).

// A band is at least this wide: a few cells of a row (an opening this wide removes words).
constexpr float kMinWidth = 3.0F;

// A band is at least this tall (a row's background holds its text line, whose box is h, with
// padding around it; the glyphs of a line, which the closing can fill into a blob, are less
// tall than their box) and at most this tall (a shaded panel or a picture, not a row).
constexpr float kMinHeight = 1.0F;
constexpr float kMaxHeight = 6.0F;

// The paper a band is compared with is the brightest value this far above or below a pixel: a
// row of a zebra table has unshaded rows around it, a wrapped row is up to about 5 h tall.
constexpr float kPaperReach = 3.0F;

// Light strokes of text on a dark band (a dark header row) are filled across up to this width.
constexpr float kStrokeFill = 0.3F;

// Intensity step (0-255): shaded is at least this much darker than the paper. Zebra stripes are
// light (#efefef on white is a step of 16); JPEG noise and paper texture are a few levels.
constexpr double kShadeStep = 9.0;

// Pieces of one band have their top and bottom edges this close.
constexpr float kJoinSlack = 0.3F;

using internal::kWorkingTextHeightPx;

// A fill is even: at least this fraction of a band's pixels are within kShadeStep of its most
// common level (the text on it covers less; a blob of text closed into a block is mostly ink and
// paper, far apart).
constexpr float kMinEvenFill = 0.5F;

// The most common grey level of `gray` inside `rect` (clipped to the image) and the fraction of
// its pixels within kShadeStep of that level; level -1 when the rect is empty.
struct Fill {
  int level = -1;
  float even = 0;
};

Fill FillOf(const cv::Mat& gray, cv::Rect rect) {
  rect &= cv::Rect(0, 0, gray.cols, gray.rows);
  if (rect.empty()) {
    return {};
  }
  std::array<int, 256> counts{};
  for (int y = rect.y; y < rect.y + rect.height; ++y) {
    const auto* row = gray.ptr<unsigned char>(y);
    for (int x = rect.x; x < rect.x + rect.width; ++x) {
      ++counts[row[x]];
    }
  }
  const auto level =
      static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  const auto step = static_cast<int>(kShadeStep);
  int near = 0;
  for (int v = std::max(0, level - step); v <= std::min(255, level + step); ++v) {
    near += counts[static_cast<std::size_t>(v)];
  }
  return Fill{level, static_cast<float>(near) / static_cast<float>(rect.area())};
}

// Pieces of one band side by side (the same rows, the same fill), which light text set densely on
// a dark band cuts apart where the opening found no room, joined into one band.
std::vector<Band> JoinedAcrossText(std::vector<Band> bands, float h) {
  std::sort(bands.begin(), bands.end(), [](const Band& a, const Band& b) {
    return a.top != b.top ? a.top < b.top : a.left < b.left;
  });
  std::vector<Band> joined;
  for (const Band& b : bands) {
    if (!joined.empty()) {
      Band& last = joined.back();
      if (std::abs(b.top - last.top) <= kJoinSlack * h &&
          std::abs(b.bottom - last.bottom) <= kJoinSlack * h &&
          b.left - last.right <= kMinWidth * h &&
          std::abs(b.fill - last.fill) <= static_cast<int>(kShadeStep)) {
        last.right = std::max(last.right, b.right);
        continue;
      }
    }
    joined.push_back(b);
  }
  return joined;
}

}  // namespace

std::vector<Band> FindBands(const cv::Mat& page, float text_height) {
  if (page.empty() || page.depth() != CV_8U || !(text_height >= 1.0F)) {
    return {};
  }
  cv::Mat gray = internal::PageGray(page);
  const float scale = std::min(1.0F, kWorkingTextHeightPx / text_height);
  if (scale < 1.0F) {
    cv::resize(gray, gray, cv::Size(), scale, scale, cv::INTER_AREA);
  }
  const float h = text_height * scale;
  const auto px = [h](float units, int least) {
    return std::max(least, static_cast<int>(std::lround(units * h)));
  };

  // Scanner noise and JPEG ringing would lift the brightest value (the paper) above the paper's
  // true level; a little smoothing first keeps them from shading the whole page. (Into a new
  // image: `gray` may share the caller's pixels.)
  cv::Mat smoothed;
  cv::blur(gray, smoothed, cv::Size(3, 3));
  gray = smoothed;
  cv::Mat paper;
  cv::dilate(gray, paper,
             cv::getStructuringElement(cv::MORPH_RECT, cv::Size(1, 2 * px(kPaperReach, 2) + 1)));
  cv::Mat shaded;
  cv::subtract(paper, gray, shaded);
  cv::threshold(shaded, shaded, kShadeStep, 255, cv::THRESH_BINARY);
  cv::morphologyEx(shaded, shaded, cv::MORPH_CLOSE,
                   cv::getStructuringElement(cv::MORPH_RECT, cv::Size(px(kStrokeFill, 1), 1)));
  cv::morphologyEx(
      shaded, shaded, cv::MORPH_OPEN,
      cv::getStructuringElement(cv::MORPH_RECT, cv::Size(px(kMinWidth, 3), px(kMinHeight, 2))));

  cv::Mat labels;
  cv::Mat stats;
  cv::Mat centroids;
  const int n = cv::connectedComponentsWithStats(shaded, labels, stats, centroids, 8, CV_32S);
  const int edge = px(0.3F, 1);  // the strips compared outside a band's top and bottom
  std::vector<Band> bands;
  for (int i = 1; i < n; ++i) {
    const cv::Rect box(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                       stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
    if (static_cast<float>(box.height) > kMaxHeight * h) {
      continue;
    }
    const Fill fill = FillOf(gray, box);
    const int above = FillOf(gray, cv::Rect(box.x, box.y - edge, box.width, edge)).level;
    const int below = FillOf(gray, cv::Rect(box.x, box.y + box.height, box.width, edge)).level;
    const auto lighter = [&fill](int level) {
      return level < 0 || level >= fill.level + kShadeStep;
    };
    if (fill.even < kMinEvenFill || !lighter(above) || !lighter(below)) {
      continue;
    }
    bands.push_back(Band{static_cast<float>(box.x) / scale, static_cast<float>(box.y) / scale,
                         static_cast<float>(box.x + box.width) / scale,
                         static_cast<float>(box.y + box.height) / scale, fill.level});
  }
  return JoinedAcrossText(std::move(bands), text_height);
}

}  // namespace ocr::layout
