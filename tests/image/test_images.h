// Builders of small image files for the image and document tests: cv::imencode wrappers,
// multi-frame TIFFs, and hand-built headers (PNG chunks with CRCs, JPEG frame headers, EXIF
// segments, TIFF IFD chains) for the cases an encoder will not write. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core/mat.hpp>

namespace ocr::image::testing {

using Bytes = std::vector<std::uint8_t>;

// The bytes of a string literal, embedded NULs included, without the terminating NUL.
template <std::size_t N>
Bytes Lit(const char (&s)[N]) {  // NOLINT(modernize-avoid-c-arrays): binds a literal
  return Bytes(s, s + N - 1);
}

// cv::imencode(ext, image, params); a failure is a test failure (and an empty result).
Bytes Encode(const std::string& ext, const cv::Mat& image, const std::vector<int>& params = {});

// Appends or overwrites integers in big- or little-endian byte order.
void PutBe16(Bytes& b, std::uint32_t v);
void PutBe32(Bytes& b, std::uint32_t v);
void PutLe16(Bytes& b, std::uint32_t v);
void PutLe32(Bytes& b, std::uint32_t v);
void SetLe32(Bytes& b, std::size_t at, std::uint32_t v);

// PNG's CRC-32 (ISO 3309).
std::uint32_t Crc32(std::span<const std::uint8_t> data);

// Appends a PNG chunk: length, type, data, CRC over type and data.
void PutPngChunk(Bytes& png, std::string_view type, const Bytes& data);

// A PNG of `color_type` (8-bit samples) whose IDAT holds `rows` (each already prefixed with its
// filter byte) in one stored deflate block, so no zlib is needed; no IDAT when `rows` is empty.
Bytes BuildPng(std::uint32_t width, std::uint32_t height, std::uint8_t color_type,
               const Bytes& rows);

// SOI, a baseline SOF0 declaring width x height with 3 components, EOI: enough for the probe.
Bytes JpegWithSof(std::uint32_t width, std::uint32_t height);

// An APP1 Exif segment whose only IFD0 entry is Orientation (0x0112) = `orientation`.
Bytes ExifApp1(std::uint32_t orientation);

// An uncompressed 8-bit gray TIFF in either byte order, one strip, width and height written with
// the given types (3 SHORT, 4 LONG); pixel (x, y) is x * 5 + y * 3.
Bytes BuildGrayTiff(bool big_endian, int width, int height, std::uint32_t width_type = 3,
                    std::uint32_t height_type = 4);

// The same with one frame (IFD and strip, in that order, chained) per element of `frames`;
// pixel (x, y) of frame i is x * 5 + y * 3 + 40 * i (mod 256). The first IFD is at offset 8.
Bytes BuildGrayTiffFrames(bool big_endian, const std::vector<cv::Size>& frames,
                          std::uint32_t width_type = 3, std::uint32_t height_type = 4);

// A multi-frame TIFF of `frames` written by OpenCV (cv::imwritemulti, LZW), one frame per image,
// through a file in the test temp dir; a failure is a test failure.
Bytes EncodeFrames(const std::vector<cv::Mat>& frames);

// A multi-frame TIFF with one frame of black text on white per element of `pages` (lines
// separated by '\n'), rendered by RenderTextPng in DejaVu Sans `font_points`. Empty when
// pango-view is missing (callers GTEST_SKIP).
Bytes RenderTextTiff(const std::vector<std::string>& pages, int font_points = 28);

// 8-bit BGR with smooth gradients in every channel, so lossy codecs stay close to the source.
cv::Mat Gradient(int width, int height);

// One small valid file of every format and flavour (baseline and progressive JPEG; 8-bit,
// 16-bit and alpha PNG; VP8, VP8L and VP8X WebP; BMP; little- and big-endian TIFF).
std::vector<Bytes> SampleFiles();

}  // namespace ocr::image::testing
