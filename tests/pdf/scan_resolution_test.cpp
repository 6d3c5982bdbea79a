// Which PDF pages are scans and at what resolution (pdf/scan_resolution.h), on hand-written pages
// whose drawing the test controls, and on img2pdf's scanned page.
#include "pdf/scan_resolution.h"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdf/test_pdfs.h"
#include "support/status_matchers.h"

namespace ocr::pdf {
namespace {

using ::testing::DoubleNear;
using ::testing::Optional;

// A letter page (612 x 792 pt) drawing `content` with image XObjects /Im0 and /Im1 of `width` x
// `height` grey pixels, and a form /Fm0 that draws nothing.
std::vector<std::uint8_t> PageWithImages(const std::string& content, int width, int height) {
  const std::string pixels(static_cast<std::size_t>(width) * height, '\xff');
  const std::string image =
      "<< /Type /XObject /Subtype /Image /Width " + std::to_string(width) + " /Height " +
      std::to_string(height) + " /ColorSpace /DeviceGray /BitsPerComponent 8 /Length " +
      std::to_string(pixels.size()) + " >>\nstream\n" + pixels + "\nendstream";
  return testing::BuildPdf({
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 "
      "R /Im1 5 0 R /Fm0 6 0 R >> /Font << /F1 7 0 R >> >> /Contents 4 0 R >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
      image,
      "<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Length 0 >>\nstream\n\nendstream",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  });
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

std::optional<double> ResolutionOf(const std::vector<std::uint8_t>& pdf, int page = 0) {
  auto scans = ScanResolutions::Open(pdf);
  EXPECT_OK(scans);
  if (!scans.ok())
    return std::nullopt;
  const auto scan = (*scans)->Of(page);
  return scan ? std::optional<double>(scan->dpi) : std::nullopt;
}

TEST(ScanResolutionTest, APageFilledByOneImageIsAScanAtItsPixelsPerInch) {
  // 850 px across 612 pt (8.5 in): 100 dpi.
  EXPECT_THAT(ResolutionOf(PageWithImages("q 612 0 0 792 0 0 cm /Im0 Do Q", 850, 1100)),
              Optional(DoubleNear(100, 1e-9)));
  // A scanner's crop leaves a margin of paper: 95% of each side is still a scan.
  EXPECT_THAT(ResolutionOf(PageWithImages("q 600 0 0 776 6 8 cm /Im0 Do Q", 850, 1100)),
              Optional(DoubleNear(1100 / (776 / 72.0), 1e-9)));  // down is the finer
}

TEST(ScanResolutionTest, StripsTurnsAndUnevenResolutionsAreMeasuredAsDrawn) {
  // Two strips, each half the page.
  EXPECT_THAT(ResolutionOf(PageWithImages(
                  "q 612 0 0 396 0 0 cm /Im0 Do Q q 612 0 0 396 0 396 cm /Im1 Do Q", 850, 550)),
              Optional(DoubleNear(100, 1e-9)));
  // Drawn a quarter turn round: the image's 1100 px run across the page's 792 pt.
  EXPECT_THAT(ResolutionOf(PageWithImages("q 0 792 -612 0 612 0 cm /Im0 Do Q", 1100, 850)),
              Optional(DoubleNear(100, 1e-9)));
  // A fax's fine mode: 200 dpi across, 100 down; the higher counts.
  EXPECT_THAT(ResolutionOf(PageWithImages("q 612 0 0 792 0 0 cm /Im0 Do Q", 1700, 1100)),
              Optional(DoubleNear(200, 1e-9)));
  // A scale given in two steps.
  EXPECT_THAT(
      ResolutionOf(PageWithImages("q 2 0 0 2 0 0 cm q 306 0 0 396 0 0 cm /Im0 Do Q Q", 850, 1100)),
      Optional(DoubleNear(100, 1e-9)));
}

TEST(ScanResolutionTest, InvisibleTextIsAnOcrLayerAndDoesNotCount) {
  EXPECT_THAT(
      ResolutionOf(PageWithImages(
          "q 612 0 0 792 0 0 cm /Im0 Do Q BT 3 Tr /F1 12 Tf 72 700 Td (Hidden) Tj ET", 850, 1100)),
      Optional(DoubleNear(100, 1e-9)));
}

TEST(ScanResolutionTest, AnythingElseShownMeansTheTextMayBeDrawnNotScanned) {
  const std::string scan = "q 612 0 0 792 0 0 cm /Im0 Do Q ";
  for (const std::string& content : {
           scan + "BT /F1 12 Tf 72 700 Td (Drawn) Tj ET",            // visible text
           scan + "BT /F1 12 Tf 3 Tr 0 Tr 72 700 Td (Drawn) Tj ET",  // visible again
           scan + "0 0 1 rg 72 72 100 100 re f",                     // a painted rectangle
           scan + "72 72 m 300 300 l S",                             // a stroked line
           scan + "/Fm0 Do",                                         // a form
           scan + "/Missing Do",                                     // a name the page lacks
           std::string("q 612 0 0 396 0 0 cm /Im0 Do Q"),            // half the page
           std::string("BT /F1 12 Tf 72 700 Td (Only text) Tj ET"),  // no image at all
           std::string(""),                                          // nothing
       }) {
    EXPECT_EQ(ResolutionOf(PageWithImages(content, 850, 1100)), std::nullopt) << content;
  }
}

TEST(ScanResolutionTest, MalformedOperatorsAndPagesOutOfRangeAreNotScans) {
  // Operands of the wrong kind or number are ignored, unbalanced Q's and deep q's kept in bounds;
  // none of them is a crash.
  EXPECT_EQ(ResolutionOf(PageWithImages("q (x) 0 0 792 0 0 cm /Im0 Do Q", 850, 1100)),
            ResolutionOf(PageWithImages("q /Im0 Do Q", 850, 1100)));
  EXPECT_EQ(ResolutionOf(PageWithImages("Q Q Q 612 0 0 792 0 0 cm 1 2 /Im0 Do", 850, 1100)),
            std::nullopt);
  EXPECT_EQ(
      ResolutionOf(PageWithImages(Repeat("q ", 100) + "612 0 0 792 0 0 cm /Im0 Do", 850, 1100)),
      std::nullopt);
  EXPECT_EQ(ResolutionOf(PageWithImages("q 0 0 0 0 0 0 cm /Im0 Do Q", 850, 1100)), std::nullopt);
  const auto pdf = PageWithImages("q 612 0 0 792 0 0 cm /Im0 Do Q", 850, 1100);
  EXPECT_EQ(ResolutionOf(pdf, 1), std::nullopt);
  EXPECT_EQ(ResolutionOf(pdf, -1), std::nullopt);
  EXPECT_EQ(ScanResolutions::Open(std::vector<std::uint8_t>{'x'}).status().code(),
            StatusCode::kInvalidPdf);
}

// A letter page (with `page_keys`) drawing `content` with one image XObject /Im0 of 850 x
// `height` pixels whose data is `data` (not decoded here) and whose dictionary has `keys` besides
// its size.
std::vector<std::uint8_t> PageWithJpeg(const std::string& content, const std::string& keys,
                                       const std::string& data, const std::string& page_keys = "",
                                       int height = 1100) {
  return testing::BuildPdf({
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " + page_keys +
          " /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
      "<< /Type /XObject /Subtype /Image /Width 850 /Height " + std::to_string(height) + " " +
          keys + " /Length " + std::to_string(data.size()) + " >>\nstream\n" + data + "\nendstream",
  });
}

std::optional<ScanResolutions::Jpeg> JpegOf(const std::vector<std::uint8_t>& pdf) {
  auto scans = ScanResolutions::Open(pdf);
  EXPECT_OK(scans);
  const auto scan = scans.ok() ? (*scans)->Of(0) : std::nullopt;
  return scan ? scan->jpeg : std::nullopt;
}

TEST(ScanResolutionTest, APageThatIsOneUprightJpegGivesItsBytes) {
  const std::string data = "\xff\xd8 JPEG bytes as stored \xff\xd9";
  const std::string rgb = "/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode";
  const std::string fill = "q 612 0 0 792 0 0 cm /Im0 Do Q";
  auto jpeg = JpegOf(PageWithJpeg(fill, rgb, data));
  ASSERT_TRUE(jpeg.has_value());
  EXPECT_EQ(jpeg->bytes, data);
  EXPECT_THAT(ResolutionOf(PageWithJpeg(fill, rgb, data)), Optional(DoubleNear(100, 1e-9)));
  EXPECT_EQ(jpeg->components, 3);
  jpeg = JpegOf(
      PageWithJpeg(fill, "/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/DCTDecode]", data));
  ASSERT_TRUE(jpeg.has_value());
  EXPECT_EQ(jpeg->components, 1);
  // Within a point of the page's edges is the whole page.
  EXPECT_TRUE(JpegOf(PageWithJpeg("q 611.5 0 0 791.5 0.2 0.3 cm /Im0 Do Q", rgb, data)));

  // Anything else is rendered: a margin, a flip, a turn, another filter or colour space,
  // samples remapped or masked, a turned page, uneven resolution, a second drawing.
  const std::vector<std::vector<std::uint8_t>> rendered = {
      PageWithJpeg("q 600 0 0 776 6 8 cm /Im0 Do Q", rgb, data),
      PageWithJpeg("q 612 0 0 -792 0 792 cm /Im0 Do Q", rgb, data),
      PageWithJpeg("q 0 792 -612 0 612 0 cm /Im0 Do Q", rgb, data),
      PageWithJpeg(fill, "/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode", data),
      PageWithJpeg(fill, "/ColorSpace /DeviceCMYK /BitsPerComponent 8 /Filter /DCTDecode", data),
      PageWithJpeg(fill, rgb + " /Decode [1 0 1 0 1 0]", data),
      PageWithJpeg(fill, rgb + " /SMask 5 0 R", data),
      PageWithJpeg(fill, rgb + " /DecodeParms << /ColorTransform 0 >>", data),
      PageWithJpeg(fill, rgb, data, "/Rotate 90"),
      PageWithJpeg(fill, rgb, data, "", 1000),
      PageWithJpeg("q 612 0 0 792 0 0 cm /Im0 Do Q q 612 0 0 792 0 0 cm /Im0 Do Q", rgb, data),
  };
  for (std::size_t i = 0; i < rendered.size(); ++i)
    EXPECT_FALSE(JpegOf(rendered[i]).has_value()) << "case " << i;
  // Pages out of range.
  auto scans = ScanResolutions::Open(PageWithJpeg(fill, rgb, data));
  ASSERT_OK(scans);
  EXPECT_FALSE((*scans)->Of(-1).has_value());
  EXPECT_FALSE((*scans)->Of(1).has_value());
}

class ScanResolutionToolsTest : public testing::PdfToolsTest {};

TEST_F(ScanResolutionToolsTest, Img2pdfsScannedPageIsAScan) {
  const auto text = testing::MakeTextPdf("scan_res_text", {"Scanned at 100 dpi"}, "letter");
  ASSERT_FALSE(text.empty());
  const auto scanned = testing::MakeScannedPdf("scan_res_scan", text);
  ASSERT_FALSE(scanned.empty());
  // A 100-dpi letter page fitted to A4 by img2pdf: a little over 100 pixels to the inch.
  EXPECT_THAT(ResolutionOf(testing::ReadBytes(scanned)), Optional(DoubleNear(103, 3)));
  EXPECT_EQ(ResolutionOf(testing::ReadBytes(text)), std::nullopt);
}

}  // namespace
}  // namespace ocr::pdf
