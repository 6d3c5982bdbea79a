#include "image/internal/probe.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include "image/test_images.h"
#include "support/test_paths.h"

namespace ocr::image::internal {
namespace {

// The builders' byte vector (image/test_images.h); the probes read it as a span (Bytes).
using File = image::testing::Bytes;
using image::testing::BuildGrayTiff;
using image::testing::BuildGrayTiffFrames;
using image::testing::BuildPng;
using image::testing::Encode;
using image::testing::Gradient;
using image::testing::JpegWithSof;
using image::testing::Lit;
using image::testing::PutLe16;
using image::testing::PutLe32;

void ExpectDims(const Result<Dims>& dims, std::int64_t width, std::int64_t height) {
  ASSERT_OK(dims);
  EXPECT_EQ(dims->width, width);
  EXPECT_EQ(dims->height, height);
}

void ExpectOk(const Status& status) {
  EXPECT_TRUE(status.ok()) << status.ToString();
}

void ExpectUndecodable(const Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), StatusCode::kUndecodableImage) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

// "RIFF" size "WEBP", then one chunk: `tag`, its size, `data`.
File Webp(std::string_view tag, const File& data) {
  File webp = Lit("RIFF");
  PutLe32(webp, static_cast<std::uint32_t>(4 + 8 + data.size()));
  const File webp_tag = Lit("WEBP");
  webp.insert(webp.end(), webp_tag.begin(), webp_tag.end());
  webp.insert(webp.end(), tag.begin(), tag.end());
  PutLe32(webp, static_cast<std::uint32_t>(data.size()));
  webp.insert(webp.end(), data.begin(), data.end());
  return webp;
}

// "BM" and a 14-byte file header whose other fields (file size, pixel offset) the probe skips.
File BmpFileHeader() {
  File bmp(14, 0);
  bmp[0] = 'B';
  bmp[1] = 'M';
  return bmp;
}

// A BMP file header and the first fields of a DIB header of `header_size` bytes.
File BmpHeader(std::uint32_t header_size, std::int32_t width, std::int32_t height) {
  File bmp = BmpFileHeader();
  PutLe32(bmp, header_size);
  PutLe32(bmp, static_cast<std::uint32_t>(width));
  PutLe32(bmp, static_cast<std::uint32_t>(height));
  return bmp;
}

// ---- Format names.

TEST(ProbeTest, EachFormatHasOneApiAndOneDisplayName) {
  const std::vector<FormatNames> expected = {
      {Format::kJpeg, "jpeg", "JPEG"},          {Format::kPng, "png", "PNG"},
      {Format::kWebp, "webp", "WebP"},          {Format::kBmp, "bmp", "BMP"},
      {Format::kTiff, "tiff", "TIFF"},          {Format::kPdf, "pdf", "PDF"},
      {Format::kUnknown, "unknown", "unknown"},
  };
  for (const auto& e : expected) {
    SCOPED_TRACE(std::string(e.api));
    EXPECT_EQ(NamesOf(e.format).format, e.format);
    EXPECT_EQ(NamesOf(e.format).api, e.api);
    EXPECT_EQ(NamesOf(e.format).display, e.display);
    EXPECT_EQ(FormatName(e.format), e.api);
  }
}

TEST(ProbeTest, ValueOutsideTheEnumIsUnknown) {
  const auto stray = static_cast<Format>(42);
  EXPECT_EQ(NamesOf(stray).api, "unknown");
  EXPECT_EQ(NamesOf(stray).display, "unknown");
  EXPECT_EQ(FormatName(stray), "unknown");
}

// ---- Byte readers.

TEST(ProbeTest, HasNeverWrapsAround) {
  const File file = {1, 2, 3, 4};
  EXPECT_TRUE(Has(file, 0, 4));
  EXPECT_TRUE(Has(file, 4, 0));
  EXPECT_FALSE(Has(file, 0, 5));
  EXPECT_FALSE(Has(file, 3, 2));
  EXPECT_FALSE(Has(file, 5, 0));
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  EXPECT_FALSE(Has(file, kMax, 1));
  EXPECT_FALSE(Has(file, 1, kMax));  // 1 + kMax would wrap to 0
  EXPECT_FALSE(Has(file, 2, kMax - 1));
  EXPECT_TRUE(Has(Bytes{}, 0, 0));
  EXPECT_FALSE(Has(Bytes{}, 0, 1));
}

TEST(ProbeTest, ReadsIntegersInBothByteOrders) {
  const File file = {0x01, 0x02, 0x03, 0x04, 0x85};
  EXPECT_EQ(Be16(file, 0), 0x0102U);
  EXPECT_EQ(Be32(file, 0), 0x01020304U);
  EXPECT_EQ(Be32(file, 1), 0x02030485U);
  EXPECT_EQ(Le16(file, 0), 0x0201U);
  EXPECT_EQ(Le24(file, 0), 0x030201U);
  EXPECT_EQ(Le32(file, 0), 0x04030201U);
  EXPECT_EQ(Le32(file, 1), 0x85040302U);
}

TEST(ProbeTest, StartsWithStopsAtTheEnd) {
  const File file = Lit("II*\0");
  EXPECT_TRUE(StartsWith(file, 0, std::string_view("II*\0", 4)));
  EXPECT_FALSE(StartsWith(file, 0, std::string_view("II*\1", 4)));
  EXPECT_TRUE(StartsWith(file, 2, "*"));
  EXPECT_FALSE(StartsWith(file, 2, std::string_view("*\0\0", 3)));  // runs past the end
  EXPECT_TRUE(StartsWith(file, 4, ""));
  EXPECT_FALSE(StartsWith(file, 5, ""));
}

// ---- Errors.

TEST(ProbeTest, ErrorsNameTheFormatForAPerson) {
  ExpectUndecodable(Malformed(Format::kWebp, "bad chunk"), "invalid WebP image: bad chunk");
  ExpectUndecodable(Truncated(Format::kTiff, "inside the header"),
                    "invalid TIFF image: file is truncated inside the header");
  ExpectUndecodable(Malformed(Format::kUnknown, "x"), "invalid unknown image: x");
}

TEST(ProbeTest, PrintableTagReplacesUnprintableBytes) {
  const File file = {'A', 'L', 'P', 0x01, 0x7F, ' ', '~'};
  EXPECT_EQ(PrintableTag(file, 0), "ALP?");
  EXPECT_EQ(PrintableTag(file, 3), "?? ~");
  EXPECT_EQ(PrintableTag(file, 5), " ~");  // the input ends first
  EXPECT_EQ(PrintableTag(file, 7), "");
  EXPECT_EQ(PrintableTag(file, 1000), "");
}

// ---- Header probes.

TEST(ProbeTest, Png) {
  ExpectDims(ProbePng(BuildPng(300, 7, 0, {})), 300, 7);
  ExpectDims(ProbePng(BuildPng(0x7FFFFFFF, 1, 0, {})), 0x7FFFFFFF, 1);
  ExpectUndecodable(ProbePng(BuildPng(0x80000000, 1, 0, {})).status(),
                    "invalid PNG image: IHDR width or height is over 2^31 - 1");
  ExpectUndecodable(ProbePng(Bytes{}).status(),
                    "invalid PNG image: file is truncated inside the IHDR chunk");
  // No magic needed: any 29 bytes are a PNG whose first chunk is wrong.
  ExpectUndecodable(ProbePng(File(29, 0)).status(),
                    "invalid PNG image: first chunk is '?\?\?\?', expected IHDR");
}

TEST(ProbeTest, Jpeg) {
  ExpectDims(ProbeJpeg(JpegWithSof(300, 200)), 300, 200);
  ExpectDims(ProbeJpeg(JpegWithSof(0, 1)), 0, 1);  // CheckDims refuses it, not the probe
  ExpectUndecodable(ProbeJpeg(JpegWithSof(1, 0)).status(),
                    "invalid JPEG image: height 0 (DNL marker) is not supported");
  ExpectUndecodable(ProbeJpeg(File{0xFF, 0xD8, 0xFF, 0xD9}).status(),
                    "invalid JPEG image: image ends before the frame header (SOF)");
  ExpectUndecodable(ProbeJpeg(File{0xFF, 0xD8}).status(),
                    "invalid JPEG image: file is truncated before the frame header (SOF)");
  ExpectUndecodable(ProbeJpeg(File{0xFF, 0xD8, 0xFF, 0xD8}).status(),
                    "invalid JPEG image: second start-of-image marker");
  File markers = {0xFF, 0xD8};
  for (int i = 0; i < 4096; ++i) {
    markers.insert(markers.end(), {0xFF, 0xFE, 0x00, 0x02});  // empty COM
  }
  ExpectUndecodable(ProbeJpeg(markers).status(),
                    "invalid JPEG image: more than 4096 marker segments before the frame "
                    "header (SOF)");
}

TEST(ProbeTest, JpegIsCompleteOnlyWithAnEndAfterItsScan) {
  File jpeg = Encode(".jpg", Gradient(64, 64));
  ExpectOk(CheckJpegIsComplete(jpeg));
  jpeg.resize(jpeg.size() * 2 / 3);
  ExpectUndecodable(
      CheckJpegIsComplete(jpeg),
      "invalid JPEG image: file is truncated inside the scan data (no end-of-image marker)");
  ExpectUndecodable(CheckJpegIsComplete(JpegWithSof(8, 8)),
                    "invalid JPEG image: image ends before the scan data");
}

TEST(ProbeTest, WebpOfEachKind) {
  File vp8 = {0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A};  // key frame tag, start code
  PutLe16(vp8, 0xC000 | 640);                       // top 2 bits: upscaling hint
  PutLe16(vp8, 480);
  ExpectDims(ProbeWebp(Webp("VP8 ", vp8)), 640, 480);
  vp8[0] = 0x11;
  ExpectUndecodable(ProbeWebp(Webp("VP8 ", vp8)).status(),
                    "invalid WebP image: VP8 frame is not a key frame");

  File vp8l = {0x2F};
  PutLe32(vp8l, (99U << 14) | 199U);  // height - 1, width - 1, version 0
  ExpectDims(ProbeWebp(Webp("VP8L", vp8l)), 200, 100);
  vp8l[4] |= 0x20;
  ExpectUndecodable(ProbeWebp(Webp("VP8L", vp8l)).status(),
                    "invalid WebP image: VP8L version is not 0");

  File vp8x = {0, 0, 0, 0, 0x6F, 0x11, 0x01, 0x02, 0x00, 0x00};  // 70000 - 1, 3 - 1 in 24 bits
  ExpectDims(ProbeWebp(Webp("VP8X", vp8x)), 70000, 3);
  vp8x.resize(9);
  ExpectUndecodable(ProbeWebp(Webp("VP8X", vp8x)).status(),
                    "invalid WebP image: file is truncated inside the VP8X header");

  ExpectUndecodable(ProbeWebp(Webp("ALPH", {})).status(),
                    "invalid WebP image: first chunk is 'ALPH', expected VP8, VP8L or VP8X");
}

TEST(ProbeTest, Bmp) {
  ExpectDims(ProbeBmp(BmpHeader(40, 7, 5)), 7, 5);
  ExpectDims(ProbeBmp(BmpHeader(124, 7, -5)), 7, 5);  // top-down
  ExpectDims(ProbeBmp(BmpHeader(40, 7, std::numeric_limits<std::int32_t>::min())), 7,
             std::int64_t{1} << 31);
  ExpectUndecodable(ProbeBmp(BmpHeader(40, -7, 5)).status(),
                    "invalid BMP image: width is negative");
  ExpectUndecodable(ProbeBmp(BmpHeader(15, 7, 5)).status(),
                    "invalid BMP image: DIB header size 15 is not a known header");
  File core = BmpFileHeader();
  PutLe32(core, 12);  // BITMAPCOREHEADER: unsigned 16-bit sizes
  PutLe16(core, 0xFFFF);
  PutLe16(core, 3);
  ExpectDims(ProbeBmp(core), 0xFFFF, 3);
  core.resize(20);
  ExpectUndecodable(ProbeBmp(core).status(),
                    "invalid BMP image: file is truncated inside the DIB header");
}

TEST(ProbeTest, TiffInBothByteOrders) {
  ExpectDims(ProbeTiff(BuildGrayTiff(false, 7, 5)), 7, 5);
  ExpectDims(ProbeTiff(BuildGrayTiff(true, 70000, 5, 4, 3)), 70000, 5);
  ExpectUndecodable(ProbeTiff(Lit("II*\0\x08\0\0")).status(),
                    "invalid TIFF image: file is truncated inside the header");
  ExpectUndecodable(ProbeTiff(Lit("II*\0\x08\0\0\0")).status(),
                    "invalid TIFF image: file is truncated before the first IFD");
  File tiff = BuildGrayTiff(false, 7, 5);
  tiff[12] = 2;  // ImageWidth's type: ASCII
  ExpectUndecodable(ProbeTiff(tiff).status(),
                    "invalid TIFF image: ImageWidth has type 2, expected SHORT or LONG");
}

TEST(ProbeTest, CheckDimsRefusesSizesNoDecoderAccepts) {
  ExpectOk(CheckDims(Format::kPng, {1, 1}));
  ExpectOk(CheckDims(Format::kPng, {kMaxInt, kMaxInt}));
  ExpectUndecodable(CheckDims(Format::kPng, {0, 1}), "invalid PNG image: width or height is zero");
  ExpectUndecodable(CheckDims(Format::kJpeg, {1, 0}),
                    "invalid JPEG image: width or height is zero");
  ExpectUndecodable(CheckDims(Format::kBmp, {1, kMaxInt + 1}),
                    "invalid BMP image: width or height does not fit in 31 bits");
}

TEST(ProbeTest, TiffFramesFollowTheIfdChainUpToTheCap) {
  const std::vector<cv::Size> sizes = {{3, 2}, {4, 5}, {6, 7}};
  for (const bool big_endian : {false, true}) {
    SCOPED_TRACE(big_endian ? "big-endian" : "little-endian");
    const File tiff = BuildGrayTiffFrames(big_endian, sizes);
    const std::vector<Dims> all = TiffFrames(tiff, 10);
    ASSERT_EQ(all.size(), 3U);
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(all[i].width, sizes[i].width);
      EXPECT_EQ(all[i].height, sizes[i].height);
    }
    EXPECT_EQ(TiffFrames(tiff, 2).size(), 2U);
    EXPECT_EQ(TiffFrames(tiff, 0).size(), 0U);
  }
}

}  // namespace
}  // namespace ocr::image::internal
