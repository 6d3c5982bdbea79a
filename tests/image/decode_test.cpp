#include "image/decode.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "image/test_images.h"
#include "support/test_paths.h"

// In the builders' namespace (image/test_images.h), so they need no qualification.
namespace ocr::image::testing {
namespace {

double MeanAbsDiff(const cv::Mat& a, const cv::Mat& b) {
  return cv::norm(a, b, cv::NORM_L1) / (static_cast<double>(a.total()) * a.channels());
}

// The hostile-input tests make OpenCV log a warning for each file it rejects; keep the test
// output readable (libjpeg and libpng still print their own one-line warnings).
void QuietOpenCvLogs() {
  QuietCodecWarnings();
}

// ---- Checking outputs.

void ExpectBgr8(const Result<cv::Mat>& decoded, int width, int height) {
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->type(), CV_8UC3);
  EXPECT_TRUE(decoded->isContinuous());
  EXPECT_EQ(decoded->cols, width);
  EXPECT_EQ(decoded->rows, height);
}

// What every call on hostile input must do: fail with an input error, or produce a valid image.
void ExpectErrorOrValid(const Result<cv::Mat>& decoded, std::int64_t max_pixels) {
  if (decoded.ok()) {
    EXPECT_EQ(decoded->type(), CV_8UC3);
    EXPECT_TRUE(decoded->isContinuous());
    EXPECT_FALSE(decoded->empty());
    EXPECT_LE(static_cast<std::int64_t>(decoded->total()), max_pixels);
    return;
  }
  const StatusCode code = decoded.status().code();
  EXPECT_TRUE(code == StatusCode::kUndecodableImage || code == StatusCode::kUnsupportedMediaType ||
              code == StatusCode::kImageTooLarge)
      << decoded.status().ToString();
  EXPECT_FALSE(decoded.status().message().empty());
}

void ExpectProbe(const Bytes& bytes, Format format, int width, int height) {
  EXPECT_EQ(SniffFormat(bytes), format);
  const Result<ImageInfo> info = ProbeImage(bytes);
  ASSERT_OK(info);
  EXPECT_EQ(info->format, format);
  EXPECT_EQ(info->width, width);
  EXPECT_EQ(info->height, height);
}

void ExpectError(const Bytes& bytes, StatusCode code, std::string_view message_part) {
  const Result<cv::Mat> decoded = DecodeImage(bytes);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), code) << decoded.status().ToString();
  EXPECT_NE(decoded.status().message().find(message_part), std::string::npos)
      << decoded.status().message();
}

// ---- Sniffing and probing.

TEST(DecodeTest, TiffThatRepeatsImageWidthIsRefusedBeforeDecoding) {
  // Found by image_decode_fuzz: the probe kept the second ImageWidth (37), libtiff decoded with
  // the first (18), so the pixel limit was checked against the wrong size.
  const std::string bytes = ocr::testing::ReadFileOrDie(
      ocr::testing::SourceDir() / "tests/regressions/image_decode_fuzz/tiff_duplicate_image_width");
  const auto data = std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  const auto probed = ProbeImage(data);
  ASSERT_FALSE(probed.ok());
  EXPECT_EQ(probed.status().code(), StatusCode::kUndecodableImage);
  EXPECT_NE(probed.status().message().find("repeats its ImageWidth"), std::string::npos)
      << probed.status().message();
  EXPECT_FALSE(DecodeImage(data).ok());
}

TEST(DecodeTest, FormatNamesAreLowerCase) {
  EXPECT_EQ(FormatName(Format::kJpeg), "jpeg");
  EXPECT_EQ(FormatName(Format::kPng), "png");
  EXPECT_EQ(FormatName(Format::kWebp), "webp");
  EXPECT_EQ(FormatName(Format::kBmp), "bmp");
  EXPECT_EQ(FormatName(Format::kTiff), "tiff");
  EXPECT_EQ(FormatName(Format::kPdf), "pdf");
  EXPECT_EQ(FormatName(Format::kUnknown), "unknown");
}

TEST(DecodeTest, SniffsMagicBytes) {
  EXPECT_EQ(SniffFormat(Bytes{0xFF, 0xD8, 0xFF}), Format::kJpeg);
  EXPECT_EQ(SniffFormat(Bytes{0xFF, 0xD8}), Format::kUnknown);
  EXPECT_EQ(SniffFormat(Lit("\x89PNG\r\n\x1A\n")), Format::kPng);
  EXPECT_EQ(SniffFormat(Lit("\x89PNG\r\n\x1A")), Format::kUnknown);
  EXPECT_EQ(SniffFormat(Lit("RIFF\x10\0\0\0WEBP")), Format::kWebp);
  EXPECT_EQ(SniffFormat(Lit("RIFF\x10\0\0\0WAVE")), Format::kUnknown);
  EXPECT_EQ(SniffFormat(Lit("BM")), Format::kBmp);
  EXPECT_EQ(SniffFormat(Lit("II*\0")), Format::kTiff);
  EXPECT_EQ(SniffFormat(Lit("MM\0*")), Format::kTiff);
  EXPECT_EQ(SniffFormat(Lit("II\0*")), Format::kUnknown);
  EXPECT_EQ(SniffFormat(Lit("%PDF-1.7\n")), Format::kPdf);
  EXPECT_EQ(SniffFormat(Bytes{}), Format::kUnknown);
  EXPECT_EQ(SniffFormat(Lit("GIF89a")), Format::kUnknown);
}

TEST(DecodeTest, SniffsPdfAfterUpTo1024JunkBytes) {
  Bytes pdf(1024, 'x');
  const Bytes magic = Lit("%PDF-1.4");
  pdf.insert(pdf.end(), magic.begin(), magic.end());
  EXPECT_EQ(SniffFormat(pdf), Format::kPdf);
  pdf.insert(pdf.begin(), 'x');  // 1025 junk bytes: too far
  EXPECT_EQ(SniffFormat(pdf), Format::kUnknown);
}

TEST(DecodeTest, PdfIsUnsupportedMediaType) {
  ExpectError(Lit("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n"), StatusCode::kUnsupportedMediaType, "PDF");
  const Result<ImageInfo> info = ProbeImage(Lit("junk\n%PDF-1.4\n"));
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kUnsupportedMediaType);
}

TEST(DecodeTest, EmptyAndTinyInputs) {
  ExpectError({}, StatusCode::kUnsupportedMediaType, "not a supported image");
  ExpectError(Lit("abc"), StatusCode::kUnsupportedMediaType, "not a supported image");
  ExpectError(Bytes{0xFF, 0xD8, 0xFF}, StatusCode::kUndecodableImage, "JPEG");
  ExpectError(Lit("BM"), StatusCode::kUndecodableImage, "BMP");
}

// ---- Round trips through cv::imencode, one per format and flavour.

TEST(DecodeTest, DecodesJpeg) {
  const cv::Mat source = Gradient(37, 23);
  for (const bool progressive : {false, true}) {
    const Bytes jpeg = Encode(".jpg", source, {cv::IMWRITE_JPEG_PROGRESSIVE, progressive ? 1 : 0});
    ExpectProbe(jpeg, Format::kJpeg, 37, 23);
    const Result<cv::Mat> decoded = DecodeImage(jpeg);
    ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 37, 23));
    EXPECT_LT(MeanAbsDiff(*decoded, source), 4.0);
  }
}

TEST(DecodeTest, DecodesGrayJpegToBgr) {
  cv::Mat gray;
  cv::cvtColor(Gradient(40, 24), gray, cv::COLOR_BGR2GRAY);
  const Result<cv::Mat> decoded = DecodeImage(Encode(".jpg", gray));
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 40, 24));
  cv::Mat expected;
  cv::cvtColor(gray, expected, cv::COLOR_GRAY2BGR);
  EXPECT_LT(MeanAbsDiff(*decoded, expected), 4.0);
}

TEST(DecodeTest, AppliesExifOrientationToJpeg) {
  // Stored 40x20 with a dark top-left quadrant. Orientation 6 means "rotate 90 degrees clockwise
  // to display", which moves the stored top-left corner to the displayed top-right.
  cv::Mat source(20, 40, CV_8UC3, cv::Scalar::all(255));
  source(cv::Rect(0, 0, 20, 10)).setTo(cv::Scalar::all(0));
  Bytes jpeg = Encode(".jpg", source, {cv::IMWRITE_JPEG_QUALITY, 95});
  const Bytes app1 = ExifApp1(6);
  jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());  // right after SOI
  ExpectProbe(jpeg, Format::kJpeg, 40, 20);                 // the probe reports stored size
  const Result<cv::Mat> decoded = DecodeImage(jpeg);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 20, 40));
  EXPECT_LT(decoded->at<cv::Vec3b>(5, 15)[0], 40);    // top-right: dark
  EXPECT_GT(decoded->at<cv::Vec3b>(5, 5)[0], 215);    // top-left: light
  EXPECT_GT(decoded->at<cv::Vec3b>(30, 15)[0], 215);  // bottom-right: light
}

TEST(DecodeTest, DecodesPng) {
  const cv::Mat source = Gradient(37, 23);
  const Bytes png = Encode(".png", source);
  ExpectProbe(png, Format::kPng, 37, 23);
  const Result<cv::Mat> decoded = DecodeImage(png);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 37, 23));
  EXPECT_EQ(cv::norm(*decoded, source, cv::NORM_INF), 0.0);
}

TEST(DecodeTest, ScalesSixteenBitPngToEightBit) {
  cv::Mat source(3, 4, CV_16UC3);
  const std::array<std::uint16_t, 6> samples = {0, 257, 1000, 32768, 65280, 65535};
  for (std::size_t i = 0; i < 12; ++i) {
    const std::uint16_t v = samples[i % 6];
    const int y = static_cast<int>(i / 4);
    const int x = static_cast<int>(i % 4);
    source.at<cv::Vec3w>(y, x) = cv::Vec3w(v, static_cast<std::uint16_t>(65535 - v), v);
  }
  const Bytes png = Encode(".png", source);
  ExpectProbe(png, Format::kPng, 4, 3);
  const Result<cv::Mat> decoded = DecodeImage(png);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 4, 3));
  cv::Mat expected;
  source.convertTo(expected, CV_8U, 1.0 / 257.0);
  EXPECT_EQ(cv::norm(*decoded, expected, cv::NORM_INF), 0.0);
  EXPECT_EQ(decoded->at<cv::Vec3b>(0, 0), cv::Vec3b(0, 255, 0));
  EXPECT_EQ(decoded->at<cv::Vec3b>(0, 1), cv::Vec3b(1, 254, 1));
  EXPECT_EQ(decoded->at<cv::Vec3b>(1, 1), cv::Vec3b(255, 0, 255));  // 65535
}

TEST(DecodeTest, ExpandsGrayPngToBgr) {
  cv::Mat gray(5, 6, CV_8UC1);
  for (int i = 0; i < 30; ++i) {
    gray.at<std::uint8_t>(i / 6, i % 6) = static_cast<std::uint8_t>(i * 8);
  }
  const Result<cv::Mat> decoded = DecodeImage(Encode(".png", gray));
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 6, 5));
  EXPECT_EQ(decoded->at<cv::Vec3b>(2, 3), cv::Vec3b(120, 120, 120));
}

TEST(DecodeTest, CompositesPngAlphaOntoWhite) {
  // Black text on a transparent background: the transparent pixels are black with alpha 0.
  cv::Mat source(4, 6, CV_8UC4, cv::Scalar(0, 0, 0, 0));
  source(cv::Rect(3, 0, 3, 4)).setTo(cv::Scalar(0, 0, 0, 255));  // opaque black
  source.at<cv::Vec4b>(3, 0) = cv::Vec4b(0, 0, 255, 128);        // half-transparent red
  const Bytes png = Encode(".png", source);
  ExpectProbe(png, Format::kPng, 6, 4);
  const Result<cv::Mat> decoded = DecodeImage(png);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 6, 4));
  EXPECT_EQ(decoded->at<cv::Vec3b>(0, 0), cv::Vec3b(255, 255, 255));
  EXPECT_EQ(decoded->at<cv::Vec3b>(0, 4), cv::Vec3b(0, 0, 0));
  EXPECT_EQ(decoded->at<cv::Vec3b>(3, 0), cv::Vec3b(127, 127, 255));
}

TEST(DecodeTest, CompositesGrayAlphaPngOntoWhite) {
  Bytes rows;  // 3x2, gray + alpha: transparent black, opaque black, half-transparent black
  for (int y = 0; y < 2; ++y) {
    rows.insert(rows.end(), {0, 0, 0, 0, 255, 0, 128});
  }
  const Bytes png = BuildPng(3, 2, /*color_type=*/4, rows);
  ExpectProbe(png, Format::kPng, 3, 2);
  const Result<cv::Mat> decoded = DecodeImage(png);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 3, 2));
  EXPECT_EQ(decoded->at<cv::Vec3b>(1, 0), cv::Vec3b(255, 255, 255));
  EXPECT_EQ(decoded->at<cv::Vec3b>(1, 1), cv::Vec3b(0, 0, 0));
  EXPECT_EQ(decoded->at<cv::Vec3b>(1, 2), cv::Vec3b(127, 127, 127));
}

TEST(DecodeTest, DecodesEveryWebpVariant) {
  const cv::Mat source = Gradient(37, 23);
  cv::Mat with_alpha;
  cv::cvtColor(source, with_alpha, cv::COLOR_BGR2BGRA);
  with_alpha(cv::Rect(0, 0, 10, 23)).setTo(cv::Scalar(0, 0, 0, 0));  // transparent left strip

  struct Case {
    std::string_view chunk;
    cv::Mat image;
    int quality;
  };

  // libwebp writes VP8 for lossy, VP8L for lossless and VP8X for lossy with alpha.
  for (const Case& c :
       {Case{"VP8 ", source, 80}, Case{"VP8L", source, 101}, Case{"VP8X", with_alpha, 80}}) {
    SCOPED_TRACE(std::string(c.chunk));
    const Bytes webp = Encode(".webp", c.image, {cv::IMWRITE_WEBP_QUALITY, c.quality});
    ASSERT_GE(webp.size(), 16U);
    ASSERT_EQ(std::string_view(reinterpret_cast<const char*>(webp.data()) + 12, 4), c.chunk);
    ExpectProbe(webp, Format::kWebp, 37, 23);
    const Result<cv::Mat> decoded = DecodeImage(webp);
    ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 37, 23));
    const cv::Rect opaque(10, 0, 27, 23);
    EXPECT_LT(MeanAbsDiff((*decoded)(opaque), source(opaque)), c.quality > 100 ? 0.01 : 6.0);
    if (c.chunk == "VP8X") {
      EXPECT_GT(cv::mean((*decoded)(cv::Rect(0, 0, 8, 23)))[0], 240.0);  // white, not black
    }
  }
}

TEST(DecodeTest, DecodesBmp) {
  const cv::Mat source = Gradient(37, 23);
  const Bytes bmp = Encode(".bmp", source);
  ExpectProbe(bmp, Format::kBmp, 37, 23);
  const Result<cv::Mat> decoded = DecodeImage(bmp);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 37, 23));
  EXPECT_EQ(cv::norm(*decoded, source, cv::NORM_INF), 0.0);
}

TEST(DecodeTest, DecodesTopDownBmp) {
  // OpenCV writes bottom-up rows with a positive height. Negating the height (offset 22) makes
  // the same rows top-down, so the decoded image is the source flipped vertically.
  const cv::Mat source = Gradient(37, 23);
  Bytes bmp = Encode(".bmp", source);
  SetLe32(bmp, 22, static_cast<std::uint32_t>(-23));
  ExpectProbe(bmp, Format::kBmp, 37, 23);
  const Result<cv::Mat> decoded = DecodeImage(bmp);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 37, 23));
  cv::Mat flipped;
  cv::flip(source, flipped, 0);
  EXPECT_EQ(cv::norm(*decoded, flipped, cv::NORM_INF), 0.0);
}

TEST(DecodeTest, DecodesBmpWithCoreHeader) {
  // BITMAPCOREHEADER: 12 bytes, 16-bit width and height, 24-bit rows bottom-up, padded to 4.
  const int width = 5;
  const int height = 3;
  const int stride = (width * 3 + 3) / 4 * 4;
  Bytes bmp = Lit("BM");
  PutLe32(bmp, static_cast<std::uint32_t>(14 + 12 + stride * height));
  PutLe32(bmp, 0);
  PutLe32(bmp, 14 + 12);
  PutLe32(bmp, 12);
  PutLe16(bmp, width);
  PutLe16(bmp, height);
  PutLe16(bmp, 1);   // planes
  PutLe16(bmp, 24);  // bits per pixel
  for (int row = 0; row < height; ++row) {
    for (int x = 0; x < width; ++x) {
      bmp.insert(bmp.end(), {10, 20, static_cast<std::uint8_t>(row)});
    }
    bmp.insert(bmp.end(), static_cast<std::size_t>(stride - width * 3), 0);
  }
  ExpectProbe(bmp, Format::kBmp, width, height);
  const Result<cv::Mat> decoded = DecodeImage(bmp);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, width, height));
  EXPECT_EQ(decoded->at<cv::Vec3b>(2, 4), cv::Vec3b(10, 20, 0));  // first stored row is the last
  EXPECT_EQ(decoded->at<cv::Vec3b>(0, 0), cv::Vec3b(10, 20, 2));
}

TEST(DecodeTest, DecodesTiff) {
  const cv::Mat source = Gradient(37, 23);
  const Bytes tiff = Encode(".tiff", source);
  ExpectProbe(tiff, Format::kTiff, 37, 23);
  const Result<cv::Mat> decoded = DecodeImage(tiff);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 37, 23));
  EXPECT_EQ(cv::norm(*decoded, source, cv::NORM_INF), 0.0);

  cv::Mat source16;
  source.convertTo(source16, CV_16U, 257.0);
  const Result<cv::Mat> decoded16 = DecodeImage(Encode(".tiff", source16));
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded16, 37, 23));
  EXPECT_EQ(cv::norm(*decoded16, source, cv::NORM_INF), 0.0);
}

TEST(DecodeTest, DecodesTiffInBothByteOrdersAndDimensionTypes) {
  for (const bool big_endian : {false, true}) {
    for (const std::uint32_t width_type : {3U, 4U}) {
      SCOPED_TRACE(std::string(big_endian ? "MM" : "II") + " width type " +
                   std::to_string(width_type));
      const Bytes tiff = BuildGrayTiff(big_endian, 7, 5, width_type, 7 - width_type);
      ExpectProbe(tiff, Format::kTiff, 7, 5);
      const Result<cv::Mat> decoded = DecodeImage(tiff);
      ASSERT_NO_FATAL_FAILURE(ExpectBgr8(decoded, 7, 5));
      EXPECT_EQ(decoded->at<cv::Vec3b>(4, 6), cv::Vec3b(42, 42, 42));  // x * 5 + y * 3
    }
  }
}

// ---- The pixel limit.

TEST(DecodeTest, RefusesHugePngFromItsHeader) {
  const Bytes png = BuildPng(60000, 60000, /*color_type=*/2, {});
  ASSERT_LT(png.size(), 100U);
  ExpectProbe(png, Format::kPng, 60000, 60000);
  const auto start = std::chrono::steady_clock::now();
  ExpectError(png, StatusCode::kImageTooLarge,
              "image is 60000x60000 = 3600000000 pixels, over the limit of 50000000");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(DecodeTest, RefusesHugeJpegFromItsFrameHeader) {
  const Bytes jpeg = JpegWithSof(65000, 65000);
  ExpectProbe(jpeg, Format::kJpeg, 65000, 65000);
  ExpectError(jpeg, StatusCode::kImageTooLarge, "65000x65000");
}

TEST(DecodeTest, MaxPixelsIsInclusive) {
  const Bytes png = Encode(".png", Gradient(10, 10));
  EXPECT_OK(DecodeImage(png, {.max_pixels = 100}));
  const Result<cv::Mat> refused = DecodeImage(png, {.max_pixels = 99});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kImageTooLarge);
}

// ---- Malformed headers.

TEST(DecodeTest, MalformedHeadersNameTheFormatAndTheProblem) {
  QuietOpenCvLogs();
  const Bytes png = Encode(".png", Gradient(8, 8));
  const Bytes jpeg = Encode(".jpg", Gradient(8, 8));
  const Bytes bmp = Encode(".bmp", Gradient(8, 8));
  const Bytes vp8 = Encode(".webp", Gradient(8, 8), {cv::IMWRITE_WEBP_QUALITY, 80});
  const Bytes vp8l = Encode(".webp", Gradient(8, 8), {cv::IMWRITE_WEBP_QUALITY, 101});

  struct Case {
    std::string name;
    Bytes bytes;
    std::string message_part;
  };

  std::vector<Case> cases;
  auto with = [](Bytes b, std::size_t at, std::initializer_list<std::uint8_t> patch) {
    std::copy(patch.begin(), patch.end(), b.begin() + static_cast<std::ptrdiff_t>(at));
    return b;
  };
  cases.push_back({"png chunk type", with(png, 12, {'I', 'D', 'A', 'T'}), "PNG"});
  cases.push_back({"png zero width", with(png, 16, {0, 0, 0, 0}), "zero"});
  cases.push_back({"png width 2^31", with(png, 16, {0x80, 0, 0, 0}), "2^31"});
  cases.push_back({"png ihdr length", with(png, 8, {0, 0, 0, 12}), "IHDR"});
  cases.push_back({"jpeg zero height", JpegWithSof(100, 0), "DNL"});
  cases.push_back({"jpeg zero width", JpegWithSof(0, 100), "zero"});
  cases.push_back({"jpeg segment length 1", Bytes{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01}, "under 2"});
  cases.push_back(
      {"jpeg segment past end", Bytes{0xFF, 0xD8, 0xFF, 0xE0, 0x40, 0x00, 1, 2}, "truncated"});
  cases.push_back({"jpeg sos first", Bytes{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02}, "scan data"});
  cases.push_back({"jpeg eoi first", Bytes{0xFF, 0xD8, 0xFF, 0xD9}, "ends before"});
  cases.push_back({"jpeg short sof", Bytes{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x04, 8, 0}, "SOF"});
  cases.push_back({"webp start code", with(vp8, 23, {0, 0, 0}), "start code"});
  cases.push_back({"webp vp8l signature", with(vp8l, 20, {0x00}), "signature"});
  cases.push_back({"webp vp8l version", with(vp8l, 24, {0xE0}), "version"});
  cases.push_back({"webp unknown chunk", with(vp8, 12, {'A', 'L', 'P', 0x01}), "'ALP?'"});
  cases.push_back({"bmp header size", with(bmp, 14, {5, 0, 0, 0}), "DIB header size 5"});
  cases.push_back({"bmp negative width", with(bmp, 18, {0xF8, 0xFF, 0xFF, 0xFF}), "negative"});
  cases.push_back({"bmp height int32 min", with(bmp, 22, {0, 0, 0, 0x80}), "31 bits"});
  Bytes tiff = BuildGrayTiff(false, 7, 5);
  cases.push_back({"tiff ifd past end", with(tiff, 4, {0xFF, 0xFF, 0, 0}), "before the first IFD"});
  cases.push_back({"tiff empty ifd", with(tiff, 8, {0, 0}), "empty"});
  // 0xFFFF entries, and no ImageWidth among the real ones, so the walk runs off the end.
  cases.push_back(
      {"tiff entries past end", with(tiff, 8, {0xFF, 0xFF, 0x01, 0x03}), "inside the first IFD"});
  cases.push_back({"tiff width type", with(tiff, 12, {2, 0}), "ImageWidth has type 2"});
  cases.push_back({"tiff no height tag", with(tiff, 22, {0x01, 0x03}), "no ImageLength"});
  cases.push_back({"tiff zero width", with(tiff, 18, {0, 0}), "zero"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Result<ImageInfo> info = ProbeImage(c.bytes);
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.status().code(), StatusCode::kUndecodableImage);
    EXPECT_NE(info.status().message().find(c.message_part), std::string::npos)
        << info.status().message();
    const std::string_view name(c.name);
    const std::string format = name.starts_with("png")    ? "PNG"
                               : name.starts_with("jpeg") ? "JPEG"
                               : name.starts_with("webp") ? "WebP"
                               : name.starts_with("bmp")  ? "BMP"
                                                          : "TIFF";
    EXPECT_NE(info.status().message().find("invalid " + format + " image"), std::string::npos)
        << info.status().message();
    ExpectError(c.bytes, StatusCode::kUndecodableImage, format);
  }
}

TEST(DecodeTest, JpegMarkerWalkIsBounded) {
  Bytes jpeg = {0xFF, 0xD8};
  for (int i = 0; i < 100000; ++i) {
    jpeg.insert(jpeg.end(), {0xFF, 0xFE, 0x00, 0x02});  // empty COM
  }
  const Bytes sof = JpegWithSof(8, 8);
  jpeg.insert(jpeg.end(), sof.begin() + 2, sof.end());
  ExpectError(jpeg, StatusCode::kUndecodableImage, "marker segments");
}

TEST(DecodeTest, JpegProbeSkipsStrayBytesLikeLibjpeg) {
  // libjpeg skips (with a warning) bytes between segments up to the next 0xFF, and 0xFF fill
  // bytes; the probe must find the same frame header the decoder will use.
  const cv::Mat source = Gradient(37, 23);
  Bytes jpeg = Encode(".jpg", source);
  ASSERT_EQ(jpeg[2], 0xFF);
  ASSERT_EQ(jpeg[3], 0xE0);  // OpenCV writes a JFIF APP0 first
  const std::size_t after_app0 = 4 + (std::size_t{jpeg[4]} << 8 | jpeg[5]);
  jpeg.insert(jpeg.begin() + static_cast<std::ptrdiff_t>(after_app0), {0x00, 0x12, 0xFF, 0xFF});
  ExpectProbe(jpeg, Format::kJpeg, 37, 23);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(DecodeImage(jpeg), 37, 23));
}

TEST(DecodeTest, AcceptsBytesAfterJpegEnd) {
  // Some cameras append data (a second image, a video) after the EOI; libjpeg ignores it.
  Bytes jpeg = Encode(".jpg", Gradient(37, 23));
  const Bytes trailer = {0x00, 0xFF, 0xD8, 0xFF, 0xE0, 0x12, 0x34, 0xFF};
  jpeg.insert(jpeg.end(), trailer.begin(), trailer.end());
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(DecodeImage(jpeg), 37, 23));
}

TEST(DecodeTest, RefusesJpegCutInsideItsScanData) {
  // An EXIF thumbnail ends with its own EOI (FF D9) before the main image's scan data starts;
  // only an EOI after the first SOS counts.
  Bytes jpeg = Encode(".jpg", Gradient(64, 64));
  Bytes app1 = {0xFF, 0xE1, 0x00, 0x0C, 'E', 'x', 'i', 'f', 0, 0, 0xFF, 0xD8, 0xFF, 0xD9};
  jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(DecodeImage(jpeg), 64, 64));
  jpeg.resize(jpeg.size() * 2 / 3);
  ExpectError(jpeg, StatusCode::kUndecodableImage, "end-of-image");
}

// ---- Hostile input: truncation, mutation, random bytes.

TEST(DecodeTest, TruncatedFilesFailCleanly) {
  QuietOpenCvLogs();
  // Every strict prefix fails, JPEG included: libjpeg would pad a JPEG cut inside its scan data
  // with gray rows, and DecodeImage refuses that instead of reading half a page.
  for (const Bytes& file : SampleFiles()) {
    SCOPED_TRACE(std::string(FormatName(SniffFormat(file))) + ", " + std::to_string(file.size()) +
                 " bytes");
    const Result<ImageInfo> full = ProbeImage(file);
    ASSERT_OK(full);
    std::vector<std::size_t> cuts;
    for (std::size_t cut = 0; cut < std::min<std::size_t>(file.size(), 300); ++cut) {
      cuts.push_back(cut);
    }
    for (std::size_t cut = 300; cut < file.size(); cut += 97) {
      cuts.push_back(cut);
    }
    cuts.push_back(file.size() - 2);
    cuts.push_back(file.size() - 1);
    for (const std::size_t cut : cuts) {
      SCOPED_TRACE("cut at " + std::to_string(cut));
      const Bytes prefix(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(cut));
      const Result<ImageInfo> info = ProbeImage(prefix);
      const Result<cv::Mat> decoded = DecodeImage(prefix);
      ASSERT_FALSE(decoded.ok());
      // A prefix shorter than the magic bytes is no known format; any longer one is the same
      // format, broken.
      const Format format = SniffFormat(prefix);
      EXPECT_TRUE(format == Format::kUnknown || format == full->format);
      const StatusCode expected = format == Format::kUnknown ? StatusCode::kUnsupportedMediaType
                                                             : StatusCode::kUndecodableImage;
      EXPECT_EQ(decoded.status().code(), expected) << decoded.status().ToString();
      if (info.ok()) {  // a prefix never probes to another size
        EXPECT_EQ(info->width, full->width);
        EXPECT_EQ(info->height, full->height);
      } else {
        EXPECT_EQ(info.status().code(), expected);
      }
    }
  }
}

TEST(DecodeTest, MutatedFilesNeverCrash) {
  QuietOpenCvLogs();
  constexpr std::uint32_t kSeed = 7767517;
  RecordProperty("seed", static_cast<int>(kSeed));
  std::mt19937 rng(kSeed);
  const DecodeOptions options{.max_pixels = 1 << 22};
  for (const Bytes& file : SampleFiles()) {
    for (int iteration = 0; iteration < 400; ++iteration) {
      SCOPED_TRACE("seed " + std::to_string(kSeed) + ", " +
                   std::string(FormatName(SniffFormat(file))) + ", iteration " +
                   std::to_string(iteration));
      Bytes mutated = file;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int i = 0; i < flips; ++i) {
        // Most flips land in the first 64 bytes, where the headers the probe reads live.
        const std::size_t span =
            rng() % 2 == 0 ? std::min<std::size_t>(64, mutated.size()) : mutated.size();
        mutated[rng() % span] = static_cast<std::uint8_t>(rng());
      }
      const Result<ImageInfo> info = ProbeImage(mutated);
      const Result<cv::Mat> decoded = DecodeImage(mutated, options);
      ExpectErrorOrValid(decoded, options.max_pixels);
      if (decoded.ok()) {
        ASSERT_OK(info);
      }
    }
  }
}

TEST(DecodeTest, RandomBytesNeverCrash) {
  QuietOpenCvLogs();
  constexpr std::uint32_t kSeed = 7767517;
  RecordProperty("seed", static_cast<int>(kSeed));
  std::mt19937 rng(kSeed);
  const std::vector<Bytes> magics = {
      {0xFF, 0xD8, 0xFF},
      Lit("\x89PNG\r\n\x1A\n\0\0\0\x0DIHDR"),
      Lit("RIFF\0\0\0\0WEBPVP8 "),
      Lit("RIFF\0\0\0\0WEBPVP8L"),
      Lit("RIFF\0\0\0\0WEBPVP8X"),
      Lit("BM"),
      Lit("II*\0\x08\0\0\0"),
      Lit("MM\0*\0\0\0\x08"),
      {},
  };
  const DecodeOptions options{.max_pixels = 1 << 22};
  for (int iteration = 0; iteration < 3000; ++iteration) {
    SCOPED_TRACE("seed " + std::to_string(kSeed) + ", iteration " + std::to_string(iteration));
    Bytes bytes = magics[rng() % magics.size()];
    const std::size_t length = rng() % 256;
    for (std::size_t i = 0; i < length; ++i) {
      bytes.push_back(static_cast<std::uint8_t>(rng()));
    }
    const Result<ImageInfo> info = ProbeImage(bytes);
    if (info.ok()) {
      EXPECT_GT(info->width, 0);
      EXPECT_GT(info->height, 0);
      EXPECT_NE(info->format, Format::kUnknown);
    }
    ExpectErrorOrValid(DecodeImage(bytes, options), options.max_pixels);
  }
}

// ---- Multi-frame TIFF: each frame a page.

// Frames of every flavour the single-image path converts: 8-bit BGR, gray, 16-bit, and alpha.
std::vector<cv::Mat> MixedFrames() {
  const cv::Mat bgr = Gradient(37, 23);
  cv::Mat gray;
  cv::cvtColor(Gradient(20, 41), gray, cv::COLOR_BGR2GRAY);
  cv::Mat bgr16;
  Gradient(16, 9).convertTo(bgr16, CV_16U, 257.0);
  cv::Mat bgra;
  cv::cvtColor(Gradient(12, 30), bgra, cv::COLOR_BGR2BGRA);
  bgra(cv::Rect(0, 0, 4, 30)).setTo(cv::Scalar(0, 0, 0, 0));
  return {bgr, gray, bgr16, bgra};
}

// Offset of the IFD of frame `frame` in a little-endian BuildGrayTiffFrames file of 9-entry IFDs.
std::size_t GrayFrameIfd(const Bytes& tiff, int frame) {
  std::size_t ifd = 8;
  for (int i = 0; i < frame; ++i) {
    const std::size_t next = ifd + 2 + 12 * 9;
    ifd =
        tiff[next] | tiff[next + 1] << 8 | tiff[next + 2] << 16 | std::size_t{tiff[next + 3]} << 24;
  }
  return ifd;
}

TEST(DecodeFrameTest, EveryFrameDecodesAsTheSameImageAloneWould) {
  const std::vector<cv::Mat> frames = MixedFrames();
  const Bytes tiff = EncodeFrames(frames);
  const Result<int> count = CountFrames(tiff, 200);
  ASSERT_OK(count);
  EXPECT_EQ(*count, 4);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const cv::Mat& source = frames[static_cast<std::size_t>(i)];
    const Result<cv::Mat> frame = DecodeFrame(tiff, i);
    ASSERT_NO_FATAL_FAILURE(ExpectBgr8(frame, source.cols, source.rows));
    // Same flags, same conversions: what a one-frame TIFF of this image decodes to.
    const Result<cv::Mat> alone = DecodeImage(EncodeFrames({source}));
    ASSERT_OK(alone);
    EXPECT_EQ(cv::norm(*frame, *alone, cv::NORM_INF), 0.0);
  }
  EXPECT_EQ(cv::norm(*DecodeFrame(tiff, 0), frames[0], cv::NORM_INF), 0.0);
  EXPECT_EQ(cv::norm(*DecodeFrame(tiff, 0), *DecodeImage(tiff), cv::NORM_INF), 0.0);
}

TEST(DecodeFrameTest, HandBuiltFramesInBothByteOrders) {
  for (const bool big_endian : {false, true}) {
    SCOPED_TRACE(big_endian ? "MM" : "II");
    const Bytes tiff = BuildGrayTiffFrames(big_endian, {{7, 5}, {3, 9}, {11, 2}});
    ASSERT_OK(CountFrames(tiff, 200));
    EXPECT_EQ(*CountFrames(tiff, 200), 3);
    const std::vector<cv::Size> sizes = {{7, 5}, {3, 9}, {11, 2}};
    for (int i = 0; i < 3; ++i) {
      const cv::Size size = sizes[static_cast<std::size_t>(i)];
      const Result<cv::Mat> frame = DecodeFrame(tiff, i);
      ASSERT_NO_FATAL_FAILURE(ExpectBgr8(frame, size.width, size.height));
      const auto value = static_cast<std::uint8_t>(5 * (size.width - 1) + 3 + 40 * i);
      EXPECT_EQ(frame->at<cv::Vec3b>(1, size.width - 1), cv::Vec3b(value, value, value));
    }
  }
}

TEST(DecodeFrameTest, OtherFormatsAndSingleFrameTiffsHaveOneFrame) {
  EXPECT_EQ(*CountFrames(Encode(".png", Gradient(8, 8)), 200), 1);
  EXPECT_EQ(*CountFrames(Encode(".tiff", Gradient(8, 8)), 200), 1);
  EXPECT_EQ(*CountFrames(BuildGrayTiff(true, 7, 5), 1), 1);
  const Result<cv::Mat> second = DecodeFrame(Encode(".png", Gradient(8, 8)), 1);
  EXPECT_EQ(second.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CountFrames(Lit("hello"), 200).status().code(), StatusCode::kUnsupportedMediaType);
}

TEST(DecodeFrameTest, CountingStopsOneFramePastTheLimit) {
  const Bytes tiff = BuildGrayTiffFrames(false, std::vector<cv::Size>(6, cv::Size(4, 4)));
  EXPECT_EQ(*CountFrames(tiff, 200), 6);
  EXPECT_EQ(*CountFrames(tiff, 6), 6);
  EXPECT_EQ(*CountFrames(tiff, 5), 6);
  EXPECT_EQ(*CountFrames(tiff, 2), 3);  // "more than 2"
}

TEST(DecodeFrameTest, FrameOverThePixelLimitIsRefusedFromItsIfd) {
  // Frame 1 declares 60000 x 60000 and holds 16 bytes: refused from the IFD, nothing decoded.
  Bytes tiff = BuildGrayTiffFrames(false, {{4, 4}, {4, 4}});
  const std::size_t ifd = GrayFrameIfd(tiff, 1);
  tiff[ifd + 10] = 0x60;  // ImageWidth (SHORT) = 60000
  tiff[ifd + 11] = 0xEA;
  SetLe32(tiff, ifd + 22, 60000);  // ImageLength (LONG)
  EXPECT_OK(DecodeFrame(tiff, 0));
  // Decoding would fail on the missing pixels (undecodable_image): the size came first.
  const Result<cv::Mat> huge = DecodeFrame(tiff, 1);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kImageTooLarge);
  EXPECT_NE(huge.status().message().find("60000x60000"), std::string::npos);
  // The limit is per frame: two 16-pixel frames pass a 16-pixel limit.
  const Bytes small = BuildGrayTiffFrames(false, {{4, 4}, {4, 4}});
  EXPECT_OK(DecodeFrame(small, 1, {.max_pixels = 16}));
  EXPECT_EQ(DecodeFrame(small, 1, {.max_pixels = 15}).status().code(), StatusCode::kImageTooLarge);
}

TEST(DecodeFrameTest, TheFramesEndWhereTheIfdChainBreaks) {
  // As libtiff's directory walk: a link out of the file, back to an IFD already met, or to an
  // IFD without a size ends the frames there.
  const Bytes tiff = BuildGrayTiffFrames(false, {{4, 4}, {5, 5}});
  const std::size_t second = GrayFrameIfd(tiff, 1);
  const std::size_t second_next = second + 2 + 12 * 9;
  Bytes loop = tiff;
  SetLe32(loop, second_next, 8);  // frame 1 links back to frame 0
  Bytes dangling = tiff;
  SetLe32(dangling, second_next, static_cast<std::uint32_t>(tiff.size() + 100));
  Bytes empty = tiff;
  empty[second] = 0;  // frame 1's IFD has no entries
  empty[second + 1] = 0;
  EXPECT_EQ(*CountFrames(tiff, 200), 2);
  EXPECT_EQ(*CountFrames(loop, 200), 2);
  EXPECT_EQ(*CountFrames(dangling, 200), 2);
  EXPECT_EQ(*CountFrames(empty, 200), 1);
  const Result<cv::Mat> gone = DecodeFrame(empty, 1);
  EXPECT_EQ(gone.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gone.status().message().find("has 1 frame(s)"), std::string::npos)
      << gone.status().message();
  EXPECT_EQ(DecodeFrame(tiff, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeFrame(tiff, -1).status().code(), StatusCode::kInvalidArgument);

  // A one-frame TIFF with a stray link reads as it always did.
  Bytes stray = BuildGrayTiff(false, 7, 5);
  SetLe32(stray, 8 + 2 + 12 * 9, 0xFFFFFF00U);
  EXPECT_EQ(*CountFrames(stray, 200), 1);
  ASSERT_NO_FATAL_FAILURE(ExpectBgr8(DecodeFrame(stray, 0), 7, 5));
}

TEST(DecodeFrameTest, FramesOfOneFileDecodeInParallel) {
  const std::vector<cv::Mat> frames = MixedFrames();
  const Bytes tiff = EncodeFrames(frames);
  std::vector<Result<cv::Mat>> decoded(8, Status(StatusCode::kInternal, "not run"));
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < decoded.size(); ++i) {
      threads.emplace_back([&, i] { decoded[i] = DecodeFrame(tiff, static_cast<int>(i % 4)); });
    }
  }
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    ASSERT_OK(decoded[i]);
    EXPECT_EQ(decoded[i]->size(), frames[i % 4].size());
  }
}

TEST(DecodeFrameTest, MutatedMultiFrameFilesNeverCrash) {
  QuietOpenCvLogs();
  constexpr std::uint32_t kSeed = 7767517;
  RecordProperty("seed", static_cast<int>(kSeed));
  std::mt19937 rng(kSeed);
  const DecodeOptions options{.max_pixels = 1 << 22};
  const Bytes file = EncodeFrames(MixedFrames());
  for (int iteration = 0; iteration < 300; ++iteration) {
    SCOPED_TRACE("seed " + std::to_string(kSeed) + ", iteration " + std::to_string(iteration));
    Bytes mutated = file;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) {
      mutated[rng() % mutated.size()] = static_cast<std::uint8_t>(rng());
    }
    const Result<int> count = CountFrames(mutated, 200);
    if (count.ok()) {
      EXPECT_GE(*count, 1);
      EXPECT_LE(*count, 201);  // max_frames + 1 at most
    }
    const Result<cv::Mat> frame = DecodeFrame(mutated, 2, options);
    if (!frame.ok() && frame.status().code() == StatusCode::kInvalidArgument) {
      continue;  // the chain now ends before frame 2
    }
    ExpectErrorOrValid(frame, options.max_pixels);
  }
}

// ---- Real files.

TEST(DecodeTest, DecodesSharedTestImages) {
  OCR_SHARED_TESTDATA_OR_SKIP(testdata);
  std::vector<std::filesystem::path> files;
  for (const auto& dir : {testdata / "real", testdata / "synthetic" / "images"}) {
    if (!std::filesystem::is_directory(dir)) {
      continue;
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".webp" || ext == ".bmp" ||
          ext == ".tif" || ext == ".tiff") {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const std::string data = ocr::testing::ReadFileOrDie(path);
    const Bytes bytes(data.begin(), data.end());
    const Result<ImageInfo> info = ProbeImage(bytes);
    ASSERT_OK(info);
    // None of these files carries an EXIF orientation other than 1 (checked when they were
    // added), so the decoded size is the stored size.
    ASSERT_NO_FATAL_FAILURE(ExpectBgr8(DecodeImage(bytes), info->width, info->height));
  }
}

}  // namespace
}  // namespace ocr::image::testing
