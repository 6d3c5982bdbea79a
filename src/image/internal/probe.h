// Hand parsers of untrusted image bytes, for image/decode.cpp: the byte readers, the header
// probes of each format (width and height, read without decoding pixels), the TIFF frame walk,
// the JPEG completeness check, and the one table of format names. They are what the fuzz target
// image_decode_fuzz drives directly, on every input, whatever its magic bytes.
// Thread-safety: pure functions over bytes, safe from any thread.
//
// The header parsers below read bytes straight from the network. Every read goes through Has()
// first, offsets are size_t compared against the remaining length (never `offset + n`, which
// could wrap), and every loop is bounded both by the input size and by an explicit cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "image/decode.h"

namespace ocr::image::internal {

// The bytes of one upload. Every function below only reads them, during the call.
using Bytes = std::span<const std::uint8_t>;

// The largest width, height or file size a decoder takes: cv::Mat sizes are int.
inline constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();

// A size read from a header, before any check: wider than int so that a hostile value (2^32 - 1,
// or |INT32_MIN|) is represented exactly and refused by CheckDims.
struct Dims {
  std::int64_t width = 0;
  std::int64_t height = 0;
};

// ---- Format names.

// The two names of each format, written once (the table is in probe.cpp).
struct FormatNames {
  Format format = Format::kUnknown;
  std::string_view api;      // FormatName(): lower case, as clients see it ("webp")
  std::string_view display;  // for messages a person reads ("invalid WebP image: ...")
};

// The names of `format`; those of Format::kUnknown ("unknown") for a value outside the enum.
FormatNames NamesOf(Format format);

// ---- Byte readers.

// True when bytes[offset, offset + n) lies inside the input.
bool Has(Bytes bytes, std::size_t offset, std::size_t n);

// REQUIRES: Has(bytes, offset, width of the read) for each of these.
std::uint32_t Be16(Bytes b, std::size_t i);
std::uint32_t Be32(Bytes b, std::size_t i);
std::uint32_t Le16(Bytes b, std::size_t i);
std::uint32_t Le24(Bytes b, std::size_t i);
std::uint32_t Le32(Bytes b, std::size_t i);

// True when `magic` lies at `offset` (false when the input ends first).
bool StartsWith(Bytes bytes, std::size_t offset, std::string_view magic);

// ---- Errors.

// kUndecodableImage "invalid <display name> image: <what>".
Status Malformed(Format format, std::string_view what);

// Malformed(format, "file is truncated <where>").
Status Truncated(Format format, std::string_view where);

// A chunk tag taken from the input, safe to print: non-printable bytes become '?'.
// At most 4 characters, fewer when the input ends first.
std::string PrintableTag(Bytes bytes, std::size_t offset);

// ---- Header probes: each reads the size its decoder will decode, from a file of that format
// (as SniffFormat decides), and fails with kUndecodableImage (Malformed or Truncated) naming the
// format and the problem. None requires its format's magic bytes: on other bytes it fails cleanly.

// PNG: the IHDR chunk.
Result<Dims> ProbePng(Bytes b);

// JPEG: the first frame header (SOFn), found by walking the marker segments as libjpeg does.
Result<Dims> ProbeJpeg(Bytes b);

// WebP: the first chunk, VP8 (lossy), VP8L (lossless) or VP8X (extended: the canvas size).
Result<Dims> ProbeWebp(Bytes b);

// BMP: the DIB header; |height| for a top-down bitmap.
Result<Dims> ProbeBmp(Bytes b);

// TIFF: ImageWidth and ImageLength of the first IFD.
Result<Dims> ProbeTiff(Bytes b);

// A probed size that no decoder would accept is corruption, not an image: kUndecodableImage when
// width or height is 0 or over 2^31 - 1.
Status CheckDims(Format format, const Dims& dims);

// kUndecodableImage unless an end-of-image marker follows the first start-of-scan: libjpeg
// decodes a JPEG cut inside its scan data without failing (see probe.cpp).
Status CheckJpegIsComplete(Bytes b);

// The frames of a TIFF: the readable IFDs met following the next-IFD links from the header's
// (SubIFDs are not frames), at most `max_frames` of them. Like libtiff's directory walk, the
// walk ends at a link of 0 or at the first link that leads to no readable IFD (out of the file,
// back to an IFD already met, or an IFD without a usable size), so a one-frame file with a stray
// link reads as it always did, and a hostile chain costs at most `max_frames` IFD probes.
// Returns each frame's size, as its IFD declares it.
// REQUIRES: ProbeImage(b) succeeded on this TIFF (its first IFD is readable); ProbeTiff(b)
// succeeding is enough.
std::vector<Dims> TiffFrames(Bytes b, std::size_t max_frames);

}  // namespace ocr::image::internal
