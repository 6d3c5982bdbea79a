// The text layer's geometry: lines a few degrees off an axis are drawn flat on one baseline (so
// poppler's extraction reads them whole and in order), steeper lines follow their angle; and the
// words come back from pdftotext as written.
#include "pdf/layer_content.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include "pdf/searchable_pdf.h"
#include "pdf/test_pdfs.h"

namespace ocr::pdf {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A line of `words` from (x, y) (pixels, y down) turned `degrees` counterclockwise as seen, each
// word 20 px tall and 12 px a letter, 12 px apart.
std::vector<LayerWord> Line(const std::vector<std::string>& words, double x, double y,
                            double degrees) {
  const double a = degrees * kPi / 180;
  const double dx = std::cos(a);
  const double dy = -std::sin(a);  // up on the page is -y in pixels
  std::vector<LayerWord> line;
  double at = 0;
  for (const std::string& text : words) {
    const double w = 12.0 * static_cast<double>(text.size());
    const auto point = [&](double along, double up) {
      return std::array<double, 2>{x + (at + along) * dx + up * dy,
                                   y + (at + along) * dy - up * dx};
    };
    const auto tl = point(0, 20), tr = point(w, 20), br = point(w, 0), bl = point(0, 0);
    LayerWord word;
    word.text = text;
    word.corners = {static_cast<float>(tl[0]), static_cast<float>(tl[1]), static_cast<float>(tr[0]),
                    static_cast<float>(tr[1]), static_cast<float>(br[0]), static_cast<float>(br[1]),
                    static_cast<float>(bl[0]), static_cast<float>(bl[1])};
    line.push_back(word);
    at += w + 12;
  }
  return line;
}

// The text matrices (a b c d e f) of `content`, in order.
std::vector<std::array<double, 6>> Matrices(const std::string& content) {
  static const std::regex tm(R"re((\S+) (\S+) (\S+) (\S+) (\S+) (\S+) Tm)re");
  std::vector<std::array<double, 6>> out;
  for (auto it = std::sregex_iterator(content.begin(), content.end(), tm);
       it != std::sregex_iterator(); ++it) {
    std::array<double, 6> m{};
    for (std::size_t i = 0; i < 6; ++i)
      m[i] = std::stod((*it)[static_cast<int>(i) + 1]);
    out.push_back(m);
  }
  return out;
}

const std::vector<std::string> kWords = {"default", "shall", "currently", "whether", "6277"};

TEST(LayerContentTest, ALineAFewDegreesOffIsDrawnFlatOnOneBaseline) {
  LayerPage page;
  page.width = 1000;
  page.height = 400;
  page.lines.push_back(Line(kWords, 50, 200, 4.0));
  const std::string content = LayerContent(page, PixelToUser{1, 0, 0, -1, 0, 400}, "/f-0-0");
  const auto m = Matrices(content);
  ASSERT_EQ(m.size(), kWords.size());
  for (const auto& tm : m) {
    EXPECT_EQ(tm[0], 1);
    EXPECT_EQ(tm[1], 0);
    EXPECT_NEAR(tm[5], m[0][5], 1e-3) << "one baseline";
  }
  // The baseline is the line's mean: the middle word's own.
  const double rise = (12.0 * 35 / 2 + 12.0 * 2) * std::sin(4.0 * kPi / 180);
  EXPECT_NEAR(m[0][5], 200 + rise, 3.0);
}

TEST(LayerContentTest, ASteeperLineFollowsItsAngle) {
  LayerPage page;
  page.width = 1000;
  page.height = 1000;
  page.lines.push_back(Line(kWords, 50, 900, 30.0));
  const auto m = Matrices(LayerContent(page, PixelToUser{1, 0, 0, -1, 0, 1000}, "/f-0-0"));
  ASSERT_EQ(m.size(), kWords.size());
  for (const auto& tm : m) {
    EXPECT_NEAR(tm[0], std::cos(30.0 * kPi / 180), 1e-3);
    EXPECT_NEAR(tm[1], std::sin(30.0 * kPi / 180), 1e-3);
  }
}

TEST(LayerContentTest, SkewedLinesComeBackFromPdftextWholeAndInOrder) {
  if (std::system("command -v pdftotext >/dev/null") != 0)
    GTEST_SKIP() << "pdftotext not installed (poppler-utils: scripts/bootstrap)";
  for (const double degrees : {0.0, 2.0, -3.5, 4.5}) {
    SCOPED_TRACE(degrees);
    ImagePage page;
    page.width = 1000;
    page.height = 400;
    page.dpi_x = page.dpi_y = 100;
    page.pixels = [] { return Result<cv::Mat>(cv::Mat(400, 1000, CV_8UC3, cv::Scalar::all(255))); };
    page.layer.width = 1000;
    page.layer.height = 400;
    page.layer.lines.push_back(Line(kWords, 50, 150, degrees));
    page.layer.lines.push_back(Line({"second", "line"}, 50, 300, degrees));
    const Result<std::string> pdf = ImagesToPdf(std::span<const ImagePage>(&page, 1));
    ASSERT_TRUE(pdf.ok()) << pdf.status().ToString();
    const auto path = testing::TempPath("layer_skew.pdf");
    std::ofstream(path, std::ios::binary) << *pdf;
    const auto text = testing::TempPath("layer_skew.txt");
    ASSERT_TRUE(testing::Run("pdftotext '" + path.string() + "' '" + text.string() + "'"));
    std::ifstream in(text);
    std::stringstream words;
    for (std::string w; in >> w;)
      words << (words.tellp() > 0 ? " " : "") << w;
    EXPECT_EQ(words.str(), "default shall currently whether 6277 second line");
  }
}

}  // namespace
}  // namespace ocr::pdf
