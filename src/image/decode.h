// Bytes in memory -> 8-bit BGR cv::Mat. Probing reads only the header, so an image whose
// declared size is over the pixel limit is refused before any pixel memory is allocated. A TIFF
// may hold several frames (pages of a scan): they are counted from the file structure and
// decoded one at a time, each under the pixel limit.
// Thread-safety: pure functions, safe from any thread (frames of one file in parallel too).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include <opencv2/core/mat.hpp>

#include "common/status.h"

namespace ocr::image {

enum class Format { kUnknown, kJpeg, kPng, kWebp, kBmp, kTiff, kPdf };

std::string_view FormatName(Format format);  // "jpeg", "png", ..., "pdf", "unknown"

// Decides the format from magic bytes alone (never from names or headers the client sends).
Format SniffFormat(std::span<const std::uint8_t> bytes);

struct ImageInfo {
  Format format = Format::kUnknown;
  int width = 0;  // as stored, before EXIF orientation is applied
  int height = 0;
};

// Reads width and height from the file header without decoding pixels.
// Errors: kUnsupportedMediaType (not a supported image format; PDFs included),
// kUndecodableImage (a known format whose header is truncated or malformed).
Result<ImageInfo> ProbeImage(std::span<const std::uint8_t> bytes);

// What a PDF page made of the image needs besides its pixels.
struct EmbeddingInfo {
  double dpi_x = 0;  // the resolution the file states; 0 when it states none
  double dpi_y = 0;
  // A JPEG whose bytes can be a PDF image as they are (DCTDecode): 8-bit samples, 1 or 3
  // components, no Adobe colour transform marker, EXIF orientation 1 (its pixels are as shown).
  bool jpeg_as_is = false;
  int jpeg_components = 0;  // JPEG: the frame's components
};

// Reads it from the header of an image of the format SniffFormat finds (a TIFF's first IFD);
// never fails: what a header does not state, or states wrongly, is left at its default.
EmbeddingInfo ProbeEmbedding(std::span<const std::uint8_t> bytes);

struct DecodeOptions {
  // Largest accepted width x height; checked from the header before decoding.
  std::int64_t max_pixels = 50'000'000;
};

// Decodes JPEG, PNG, WebP, BMP or TIFF (first frame; see DecodeFrame) into CV_8UC3 BGR: a JPEG's
// EXIF orientation is applied (OpenCV 4.6 reads it for JPEG only), gray is expanded, alpha is
// composited onto white, 16-bit samples are scaled to 8 bit. Errors: those of ProbeImage, plus
// kImageTooLarge (over options.max_pixels), kUndecodableImage (the decoder rejects the data) and
// kResourceExhausted (out of memory).
Result<cv::Mat> DecodeImage(std::span<const std::uint8_t> bytes, const DecodeOptions& options = {});

// The number of frames in `bytes`: a TIFF's readable IFDs, found by following its IFD chain
// without decoding pixels; 1 for the other formats. As libtiff's directory walk, the chain ends
// at the first link to no readable IFD (out of the file, looping back, no usable size), so a
// one-frame TIFF with a stray link is still one frame.
// Walks at most max_frames + 1 IFDs: a result over `max_frames` means "more than max_frames".
// Errors: those of ProbeImage.
Result<int> CountFrames(std::span<const std::uint8_t> bytes, int max_frames);

// Decodes frame `frame` (from 0) of `bytes` the way DecodeImage decodes an image: frame 0 is
// exactly DecodeImage(bytes, options), and a later TIFF frame is refused from its own IFD when
// over options.max_pixels, then decoded with the same flags and conversions. Each call walks the
// IFD chain and copies the bytes into an in-memory file (no disk), cheap next to OCR of a page.
// Errors: those of DecodeImage, plus kInvalidArgument (no such frame) and kInternal (the kernel
// refused the in-memory file).
Result<cv::Mat> DecodeFrame(std::span<const std::uint8_t> bytes, int frame,
                            const DecodeOptions& options = {});

// Keeps OpenCV's codec warnings (one per bad upload) off stderr. Call once at start-up.
void QuietCodecWarnings();

}  // namespace ocr::image
