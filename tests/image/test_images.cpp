#include "image/test_images.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "support/render_text.h"

namespace ocr::image::testing {
namespace {

struct TiffEntry {
  std::uint32_t tag;
  std::uint32_t type;  // 3 SHORT, 4 LONG
  std::uint32_t value;
};

}  // namespace

Bytes Encode(const std::string& ext, const cv::Mat& image, const std::vector<int>& params) {
  Bytes out;
  EXPECT_TRUE(cv::imencode(ext, image, out, params)) << ext;
  return out;
}

void PutBe16(Bytes& b, std::uint32_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}

void PutBe32(Bytes& b, std::uint32_t v) {
  PutBe16(b, v >> 16);
  PutBe16(b, v & 0xFFFF);
}

void PutLe16(Bytes& b, std::uint32_t v) {
  b.push_back(static_cast<std::uint8_t>(v));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}

void PutLe32(Bytes& b, std::uint32_t v) {
  PutLe16(b, v & 0xFFFF);
  PutLe16(b, v >> 16);
}

void SetLe32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}

// PNG's CRC-32 (ISO 3309), bit by bit: tests need a few hundred bytes of it at most.
std::uint32_t Crc32(std::span<const std::uint8_t> data) {
  std::uint32_t crc = 0xFFFFFFFFU;
  for (const std::uint8_t byte : data) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) {
      crc = (crc >> 1) ^ (0xEDB88320U & (0U - (crc & 1U)));
    }
  }
  return ~crc;
}

void PutPngChunk(Bytes& png, std::string_view type, const Bytes& data) {
  PutBe32(png, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = png.size();
  png.insert(png.end(), type.begin(), type.end());
  png.insert(png.end(), data.begin(), data.end());
  PutBe32(png, Crc32(std::span(png).subspan(start)));
}

// A PNG of `color_type` whose IDAT holds `rows` (each already prefixed with its filter byte) in
// one stored (uncompressed) deflate block, so no zlib is needed to build it.
Bytes BuildPng(std::uint32_t width, std::uint32_t height, std::uint8_t color_type,
               const Bytes& rows) {
  Bytes png = Lit("\x89PNG\r\n\x1A\n");
  Bytes ihdr;
  PutBe32(ihdr, width);
  PutBe32(ihdr, height);
  ihdr.insert(ihdr.end(), {8, color_type, 0, 0, 0});
  PutPngChunk(png, "IHDR", ihdr);
  if (!rows.empty()) {
    Bytes zlib = {0x78, 0x01, 0x01};  // zlib header; final stored block
    PutLe16(zlib, static_cast<std::uint32_t>(rows.size()));
    PutLe16(zlib, ~static_cast<std::uint32_t>(rows.size()) & 0xFFFF);
    zlib.insert(zlib.end(), rows.begin(), rows.end());
    std::uint32_t a = 1;
    std::uint32_t b = 0;
    for (const std::uint8_t byte : rows) {
      a = (a + byte) % 65521;
      b = (b + a) % 65521;
    }
    PutBe32(zlib, b << 16 | a);  // Adler-32
    PutPngChunk(png, "IDAT", zlib);
  }
  PutPngChunk(png, "IEND", {});
  return png;
}

// SOI, a baseline SOF0 declaring width x height with 3 components, EOI: enough for the probe.
Bytes JpegWithSof(std::uint32_t width, std::uint32_t height) {
  Bytes jpeg = {0xFF, 0xD8, 0xFF, 0xC0, 0x00, 17, 8};
  PutBe16(jpeg, height);
  PutBe16(jpeg, width);
  jpeg.insert(jpeg.end(), {3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9});
  return jpeg;
}

// An APP1 Exif segment whose only IFD0 entry is Orientation (0x0112) = `orientation`.
Bytes ExifApp1(std::uint32_t orientation) {
  Bytes tiff = Lit("MM\0*\0\0\0\x08");
  PutBe16(tiff, 1);            // one entry
  PutBe16(tiff, 0x0112);       // Orientation
  PutBe16(tiff, 3);            // SHORT
  PutBe32(tiff, 1);            // count
  PutBe16(tiff, orientation);  // value, left-justified
  PutBe16(tiff, 0);
  PutBe32(tiff, 0);  // no next IFD
  Bytes app1 = {0xFF, 0xE1};
  PutBe16(app1, static_cast<std::uint32_t>(2 + 6 + tiff.size()));
  const Bytes exif = Lit("Exif\0\0");
  app1.insert(app1.end(), exif.begin(), exif.end());
  app1.insert(app1.end(), tiff.begin(), tiff.end());
  return app1;
}

namespace {

// Appends one IFD of an uncompressed 8-bit gray image and its strip to `tiff`, pixel (x, y) being
// x * 5 + y * 3 + shade; the next-IFD field is 0. Returns the offset of that field.
std::size_t AppendGrayFrame(Bytes& tiff, bool big_endian, int width, int height,
                            std::uint32_t width_type, std::uint32_t height_type,
                            std::uint32_t shade) {
  const auto w = static_cast<std::uint32_t>(width);
  const auto h = static_cast<std::uint32_t>(height);
  const std::vector<TiffEntry> entries = {
      {256, width_type, w}, {257, height_type, h}, {258, 3, 8}, {259, 3, 1},     {262, 3, 1},
      {273, 4, 0},          {277, 3, 1},           {278, 4, h}, {279, 4, w * h},
  };
  const std::size_t next_field = tiff.size() + 2 + 12 * entries.size();
  const auto data_offset = static_cast<std::uint32_t>(next_field + 4);
  auto put16 = [&](Bytes& b, std::uint32_t v) { big_endian ? PutBe16(b, v) : PutLe16(b, v); };
  auto put32 = [&](Bytes& b, std::uint32_t v) { big_endian ? PutBe32(b, v) : PutLe32(b, v); };
  put16(tiff, static_cast<std::uint32_t>(entries.size()));
  for (const TiffEntry& e : entries) {
    put16(tiff, e.tag);
    put16(tiff, e.type);
    put32(tiff, 1);
    const std::uint32_t value = e.tag == 273 ? data_offset : e.value;
    if (e.type == 3) {
      put16(tiff, value);  // a SHORT is left-justified in the 4-byte field
      put16(tiff, 0);
    } else {
      put32(tiff, value);
    }
  }
  put32(tiff, 0);  // no next IFD
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      tiff.push_back(static_cast<std::uint8_t>(x * 5 + y * 3 + shade));
    }
  }
  return next_field;
}

}  // namespace

// An uncompressed 8-bit gray TIFF in either byte order, one strip, width and height written with
// the given types (3 SHORT, 4 LONG); pixel (x, y) is x * 5 + y * 3.
Bytes BuildGrayTiff(bool big_endian, int width, int height, std::uint32_t width_type,
                    std::uint32_t height_type) {
  return BuildGrayTiffFrames(big_endian, {{width, height}}, width_type, height_type);
}

Bytes BuildGrayTiffFrames(bool big_endian, const std::vector<cv::Size>& frames,
                          std::uint32_t width_type, std::uint32_t height_type) {
  Bytes tiff = big_endian ? Lit("MM\0*\0\0\0\x08") : Lit("II*\0\x08\0\0\0");
  std::size_t next_field = 4;  // the header's link to the first IFD
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto here = static_cast<std::uint32_t>(tiff.size());
    for (int k = 0; k < 4; ++k) {
      const int shift = big_endian ? 24 - 8 * k : 8 * k;
      tiff[next_field + static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(here >> shift);
    }
    next_field = AppendGrayFrame(tiff, big_endian, frames[i].width, frames[i].height, width_type,
                                 height_type, static_cast<std::uint32_t>(40 * i));
  }
  return tiff;
}

Bytes EncodeFrames(const std::vector<cv::Mat>& frames) {
  static std::atomic<int> counter{0};
  const std::string path = ::testing::TempDir() + "/frames_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++) + ".tiff";
  EXPECT_TRUE(cv::imwritemulti(path, frames)) << path;
  std::ifstream in(path, std::ios::binary);
  Bytes out{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::remove(path.c_str());
  return out;
}

Bytes RenderTextTiff(const std::vector<std::string>& pages, int font_points) {
  std::vector<cv::Mat> frames;
  for (const std::string& page : pages) {
    const std::filesystem::path png = ocr::testing::RenderTextPng(page, font_points);
    if (png.empty())
      return {};
    frames.push_back(cv::imread(png.string(), cv::IMREAD_COLOR));
  }
  return EncodeFrames(frames);
}

// Smooth gradients in every channel, so lossy codecs stay close to the source.
cv::Mat Gradient(int width, int height) {
  cv::Mat image(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      image.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<std::uint8_t>(x * 255 / width),
                                            static_cast<std::uint8_t>(y * 255 / height), 128);
    }
  }
  return image;
}

// One small valid file of every format and flavour, for the truncation and mutation loops.
std::vector<Bytes> SampleFiles() {
  const cv::Mat bgr = Gradient(37, 23);
  cv::Mat bgra;
  cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
  bgra(cv::Rect(0, 0, 10, 23)).setTo(cv::Scalar(0, 0, 0, 0));  // WebP then writes VP8X
  cv::Mat bgr16;
  bgr.convertTo(bgr16, CV_16U, 257.0);
  return {Encode(".jpg", bgr),
          Encode(".jpg", bgr, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}),
          Encode(".png", bgr),
          Encode(".png", bgra),
          Encode(".png", bgr16),
          Encode(".webp", bgr, {cv::IMWRITE_WEBP_QUALITY, 80}),
          Encode(".webp", bgr, {cv::IMWRITE_WEBP_QUALITY, 101}),
          Encode(".webp", bgra, {cv::IMWRITE_WEBP_QUALITY, 80}),
          Encode(".bmp", bgr),
          Encode(".tiff", bgr),
          BuildGrayTiff(/*big_endian=*/true, 37, 23)};
}

}  // namespace ocr::image::testing
