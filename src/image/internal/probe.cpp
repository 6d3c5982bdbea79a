#include "image/internal/probe.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Every read of the input goes through Has() first, and every loop has a cap (see probe.h).

namespace ocr::image::internal {
namespace {

// A real JPEG has a handful of segments before its frame header (APPn, DQT, DHT, COM); even
// ICC profiles split into 255 chunks stay far below this. The cap bounds the walk on inputs
// made of millions of tiny segments.
constexpr int kMaxJpegMarkers = 4096;

// The IFD entries are sorted by tag, so ImageWidth (256) and ImageLength (257) come among the
// first few; real files have a few dozen entries in all.
constexpr std::uint32_t kMaxTiffEntries = 1024;

// One row per Format; NamesOf falls back to the last (kUnknown).
constexpr std::array<FormatNames, 7> kFormatNames{{
    {Format::kJpeg, "jpeg", "JPEG"},
    {Format::kPng, "png", "PNG"},
    {Format::kWebp, "webp", "WebP"},
    {Format::kBmp, "bmp", "BMP"},
    {Format::kTiff, "tiff", "TIFF"},
    {Format::kPdf, "pdf", "PDF"},
    {Format::kUnknown, "unknown", "unknown"},
}};

}  // namespace

FormatNames NamesOf(Format format) {
  for (const FormatNames& names : kFormatNames) {
    if (names.format == format) {
      return names;
    }
  }
  return kFormatNames.back();
}

bool Has(Bytes bytes, std::size_t offset, std::size_t n) {
  return offset <= bytes.size() && n <= bytes.size() - offset;
}

std::uint32_t Be16(Bytes b, std::size_t i) {
  return static_cast<std::uint32_t>(b[i]) << 8 | b[i + 1];
}

std::uint32_t Be32(Bytes b, std::size_t i) {
  return Be16(b, i) << 16 | Be16(b, i + 2);
}

std::uint32_t Le16(Bytes b, std::size_t i) {
  return static_cast<std::uint32_t>(b[i + 1]) << 8 | b[i];
}

std::uint32_t Le24(Bytes b, std::size_t i) {
  return static_cast<std::uint32_t>(b[i + 2]) << 16 | Le16(b, i);
}

std::uint32_t Le32(Bytes b, std::size_t i) {
  return Le16(b, i + 2) << 16 | Le16(b, i);
}

bool StartsWith(Bytes bytes, std::size_t offset, std::string_view magic) {
  if (!Has(bytes, offset, magic.size())) {
    return false;
  }
  for (std::size_t i = 0; i < magic.size(); ++i) {
    if (bytes[offset + i] != static_cast<std::uint8_t>(magic[i])) {
      return false;
    }
  }
  return true;
}

Status Malformed(Format format, std::string_view what) {
  std::string message = "invalid ";
  message += NamesOf(format).display;
  message += " image: ";
  message += what;
  return {StatusCode::kUndecodableImage, std::move(message)};
}

Status Truncated(Format format, std::string_view where) {
  std::string what = "file is truncated ";
  what += where;
  return Malformed(format, what);
}

std::string PrintableTag(Bytes bytes, std::size_t offset) {
  std::string tag;
  for (std::size_t i = 0; i < 4 && offset + i < bytes.size(); ++i) {
    const std::uint8_t c = bytes[offset + i];
    tag += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
  }
  return tag;
}

// ---- PNG: the IHDR chunk must come first (PNG spec 5.6), right after the signature.

Result<Dims> ProbePng(Bytes b) {
  constexpr std::size_t kIhdr = 8;  // after the signature: length, type, 13 data bytes, CRC
  if (!Has(b, kIhdr, 8 + 13)) {
    return Truncated(Format::kPng, "inside the IHDR chunk");
  }
  if (!StartsWith(b, kIhdr + 4, "IHDR")) {
    return Malformed(Format::kPng,
                     "first chunk is '" + PrintableTag(b, kIhdr + 4) + "', expected IHDR");
  }
  if (Be32(b, kIhdr) != 13) {
    return Malformed(Format::kPng, "IHDR chunk length is not 13");
  }
  const std::uint32_t width = Be32(b, kIhdr + 8);
  const std::uint32_t height = Be32(b, kIhdr + 12);
  // PNG limits both to 2^31 - 1, so a larger value is corruption rather than a large image.
  if (width > kMaxInt || height > kMaxInt) {
    return Malformed(Format::kPng, "IHDR width or height is over 2^31 - 1");
  }
  return Dims{width, height};
}

// ---- JPEG: walk the marker segments to the first frame header (SOFn).

namespace {

bool IsJpegSof(std::uint8_t marker) {
  // C4 (DHT), C8 (JPG, reserved) and CC (DAC) share the range but are not frame headers.
  return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

bool IsJpegSos(std::uint8_t marker) {
  return marker == 0xDA;
}

bool IsJpegStandalone(std::uint8_t marker) {
  return marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7);  // TEM, RST0-7: no length
}

// Walks the marker segments after SOI up to the first one for which `stop(marker)` holds, and
// returns the offset of that segment's length field. `target` names it in messages.
Result<std::size_t> WalkJpegTo(Bytes b, bool (*stop)(std::uint8_t), std::string_view target) {
  std::size_t pos = 2;  // after SOI
  for (int count = 0; count < kMaxJpegMarkers; ++count) {
    // Find the next marker the way libjpeg's next_marker() does: skip stray bytes up to an 0xFF,
    // then any 0xFF fill bytes; FF 00 is a stuffed byte, not a marker. Walking exactly as the
    // decoder does makes the probed size the size it will decode, which the pixel limit relies on.
    std::uint8_t marker = 0;
    while (marker == 0) {
      while (pos < b.size() && b[pos] != 0xFF) {
        ++pos;
      }
      while (pos < b.size() && b[pos] == 0xFF) {
        ++pos;
      }
      if (pos >= b.size()) {
        return Truncated(Format::kJpeg, "before " + std::string(target));
      }
      marker = b[pos++];
    }
    if (IsJpegStandalone(marker)) {
      continue;
    }
    if (marker == 0xD8) {
      return Malformed(Format::kJpeg, "second start-of-image marker");
    }
    if (marker == 0xD9) {
      return Malformed(Format::kJpeg, "image ends before " + std::string(target));
    }
    if (!Has(b, pos, 2)) {
      return Truncated(Format::kJpeg, "inside a segment length");
    }
    const std::size_t length = Be16(b, pos);  // counts its own two bytes
    if (length < 2) {
      return Malformed(Format::kJpeg, "segment length is under 2");
    }
    if (!Has(b, pos, length)) {
      return Truncated(Format::kJpeg, "inside a marker segment");
    }
    if (stop(marker)) {
      return pos;
    }
    if (marker == 0xDA) {
      return Malformed(Format::kJpeg, "scan data comes before " + std::string(target));
    }
    pos += length;
  }
  return Malformed(Format::kJpeg, "more than " + std::to_string(kMaxJpegMarkers) +
                                      " marker segments before " + std::string(target));
}

}  // namespace

Result<Dims> ProbeJpeg(Bytes b) {
  OCR_ASSIGN_OR_RETURN(const std::size_t pos, WalkJpegTo(b, IsJpegSof, "the frame header (SOF)"));
  // length(2) precision(1) height(2) width(2) components(1)
  if (Be16(b, pos) < 8) {
    return Malformed(Format::kJpeg, "frame header (SOF) is too short");
  }
  const std::uint32_t height = Be16(b, pos + 3);
  const std::uint32_t width = Be16(b, pos + 5);
  // Height 0 defers the height to a DNL marker after the first scan; libjpeg refuses it too.
  if (height == 0) {
    return Malformed(Format::kJpeg, "height 0 (DNL marker) is not supported");
  }
  return Dims{width, height};
}

// libjpeg decodes a JPEG cut short inside its scan data without failing (it pads the missing
// rows with gray and prints a warning), so an upload truncated in transit would be read as a
// partial page. Entropy-coded data never contains FF D9 (an FF there is followed by 00 or a
// restart marker), so a complete file has an EOI after its first SOS. Bytes after the EOI, which
// some cameras append, do not matter.
Status CheckJpegIsComplete(Bytes b) {
  OCR_ASSIGN_OR_RETURN(const std::size_t sos, WalkJpegTo(b, IsJpegSos, "the scan data"));
  for (std::size_t i = sos; i + 1 < b.size(); ++i) {
    if (b[i] == 0xFF && b[i + 1] == 0xD9) {
      return Status::Ok();
    }
  }
  return Truncated(Format::kJpeg, "inside the scan data (no end-of-image marker)");
}

// ---- WebP: RIFF container; the first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended).

Result<Dims> ProbeWebp(Bytes b) {
  constexpr std::size_t kChunk = 12;         // after "RIFF" size "WEBP"
  constexpr std::size_t kData = kChunk + 8;  // after the chunk's tag and size
  if (!Has(b, kChunk, 8)) {
    return Truncated(Format::kWebp, "before the first chunk");
  }
  if (StartsWith(b, kChunk, "VP8 ")) {
    // RFC 6386 9.1: a 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height
    // (the top 2 bits of each are an upscaling hint, not part of the size).
    if (!Has(b, kData, 10)) {
      return Truncated(Format::kWebp, "inside the VP8 frame header");
    }
    if ((b[kData] & 1) != 0) {
      return Malformed(Format::kWebp, "VP8 frame is not a key frame");
    }
    if (b[kData + 3] != 0x9D || b[kData + 4] != 0x01 || b[kData + 5] != 0x2A) {
      return Malformed(Format::kWebp, "VP8 start code is missing");
    }
    return Dims{Le16(b, kData + 6) & 0x3FFF, Le16(b, kData + 8) & 0x3FFF};
  }
  if (StartsWith(b, kChunk, "VP8L")) {
    // WebP lossless spec 3: signature 0x2F, then width - 1 and height - 1 in 14 bits each,
    // an alpha hint bit and a 3-bit version that must be 0.
    if (!Has(b, kData, 5)) {
      return Truncated(Format::kWebp, "inside the VP8L header");
    }
    if (b[kData] != 0x2F) {
      return Malformed(Format::kWebp, "VP8L signature is missing");
    }
    const std::uint32_t bits = Le32(b, kData + 1);
    if ((bits >> 29) != 0) {
      return Malformed(Format::kWebp, "VP8L version is not 0");
    }
    return Dims{(bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1};
  }
  if (StartsWith(b, kChunk, "VP8X")) {
    // Flags(1), reserved(3), then canvas width - 1 and height - 1 in 24 bits each. The canvas
    // size is what libwebp's WebPGetFeatures reports and what OpenCV decodes into.
    if (!Has(b, kData, 10)) {
      return Truncated(Format::kWebp, "inside the VP8X header");
    }
    return Dims{std::int64_t{Le24(b, kData + 4)} + 1, std::int64_t{Le24(b, kData + 7)} + 1};
  }
  return Malformed(Format::kWebp,
                   "first chunk is '" + PrintableTag(b, kChunk) + "', expected VP8, VP8L or VP8X");
}

// ---- BMP: 14-byte file header, then a DIB header whose first field is its own size.

Result<Dims> ProbeBmp(Bytes b) {
  constexpr std::size_t kDib = 14;
  if (!Has(b, kDib, 4)) {
    return Truncated(Format::kBmp, "before the DIB header");
  }
  const std::uint32_t header_size = Le32(b, kDib);
  if (header_size == 12) {
    // BITMAPCOREHEADER (OS/2 1.x): unsigned 16-bit width and height, always bottom-up.
    if (!Has(b, kDib + 4, 4)) {
      return Truncated(Format::kBmp, "inside the DIB header");
    }
    return Dims{Le16(b, kDib + 4), Le16(b, kDib + 6)};
  }
  // 16..64 bytes: OS/2 2.x; 40: BITMAPINFOHEADER; 52, 56, 108, 124: its later versions. All of
  // them start with signed 32-bit width and height.
  if (header_size < 16) {
    return Malformed(Format::kBmp,
                     "DIB header size " + std::to_string(header_size) + " is not a known header");
  }
  if (!Has(b, kDib + 4, 8)) {
    return Truncated(Format::kBmp, "inside the DIB header");
  }
  const auto width = static_cast<std::int32_t>(Le32(b, kDib + 4));
  const auto height = static_cast<std::int32_t>(Le32(b, kDib + 8));
  if (width < 0) {
    return Malformed(Format::kBmp, "width is negative");
  }
  // A negative height means rows are stored top-down; the image is |height| rows tall either way.
  // Widened first: -INT32_MIN does not fit an int32 (Probe then rejects it as out of range).
  return Dims{width, std::abs(std::int64_t{height})};
}

// ---- TIFF: 8-byte header with the byte order and the offset of the first IFD.

namespace {

class TiffReader {
 public:
  TiffReader(Bytes bytes, bool big_endian) : bytes_(bytes), big_endian_(big_endian) {}

  // REQUIRES: Has(bytes, i, 2) / Has(bytes, i, 4).
  std::uint32_t U16(std::size_t i) const { return big_endian_ ? Be16(bytes_, i) : Le16(bytes_, i); }

  std::uint32_t U32(std::size_t i) const { return big_endian_ ? Be32(bytes_, i) : Le32(bytes_, i); }

 private:
  Bytes bytes_;
  bool big_endian_;
};

// The IFD of frame `frame` is named in messages as a person counts frames: "the first IFD" for
// frame 0 (most TIFFs have one), else "the IFD of frame N" (N from 0, as pages are numbered).
std::string IfdName(int frame) {
  return frame == 0 ? "first IFD" : "IFD of frame " + std::to_string(frame);
}

// REQUIRES: Has(b, 0, 8). Reads ImageWidth and ImageLength from the IFD at offset `ifd`.
Result<Dims> ProbeTiffIfd(Bytes b, std::size_t ifd, int frame) {
  const TiffReader in(b, /*big_endian=*/b[0] == 'M');
  const std::string name = IfdName(frame);
  if (!Has(b, ifd, 2)) {
    return Truncated(Format::kTiff, "before the " + name);
  }
  const std::uint32_t entries = in.U16(ifd);
  if (entries == 0) {
    return Malformed(Format::kTiff, name + " is empty");
  }
  std::int64_t width = -1;
  std::int64_t height = -1;
  const std::uint32_t walked = entries < kMaxTiffEntries ? entries : kMaxTiffEntries;
  for (std::uint32_t i = 0; i < walked && (width < 0 || height < 0); ++i) {
    // tag(2) type(2) count(4) value-or-offset(4); a single SHORT or LONG sits in the value field,
    // left-justified, so it starts at offset 8 in either byte order.
    const std::size_t entry = ifd + 2 + std::size_t{12} * i;
    if (!Has(b, entry, 12)) {
      return Truncated(Format::kTiff, "inside the " + name);
    }
    const std::uint32_t tag = in.U16(entry);
    if (tag != 256 && tag != 257) {
      continue;
    }
    const std::uint32_t type = in.U16(entry + 2);
    std::int64_t value = 0;
    if (type == 3) {
      value = in.U16(entry + 8);  // SHORT
    } else if (type == 4) {
      value = in.U32(entry + 8);  // LONG
    } else {
      return Malformed(Format::kTiff, std::string(tag == 256 ? "ImageWidth" : "ImageLength") +
                                          " has type " + std::to_string(type) +
                                          ", expected SHORT or LONG");
    }
    // libtiff decodes with the first of a repeated tag; a probe that kept the second would check
    // the pixel limit against dimensions the decoder never uses (found by image_decode_fuzz).
    if ((tag == 256 ? width : height) >= 0) {
      return Malformed(Format::kTiff, name + " repeats its " +
                                          (tag == 256 ? "ImageWidth" : "ImageLength") + " tag");
    }
    (tag == 256 ? width : height) = value;
  }
  if (width < 0 || height < 0) {
    return Malformed(Format::kTiff,
                     name + " has no " + (width < 0 ? "ImageWidth" : "ImageLength") + " tag");
  }
  return Dims{width, height};
}

}  // namespace

Result<Dims> ProbeTiff(Bytes b) {
  if (!Has(b, 0, 8)) {
    return Truncated(Format::kTiff, "inside the header");
  }
  return ProbeTiffIfd(b, TiffReader(b, b[0] == 'M').U32(4), 0);
}

Status CheckDims(Format format, const Dims& dims) {
  if (dims.width <= 0 || dims.height <= 0) {
    return Malformed(format, "width or height is zero");
  }
  if (dims.width > kMaxInt || dims.height > kMaxInt) {
    return Malformed(format, "width or height does not fit in 31 bits");
  }
  return Status::Ok();
}

std::vector<Dims> TiffFrames(Bytes b, std::size_t max_frames) {
  const TiffReader in(b, /*big_endian=*/b[0] == 'M');
  std::vector<Dims> frames;
  std::set<std::size_t> seen;
  for (std::size_t ifd = in.U32(4); frames.size() < max_frames && seen.insert(ifd).second;) {
    const Result<Dims> dims = ProbeTiffIfd(b, ifd, static_cast<int>(frames.size()));
    if (!dims.ok() || !CheckDims(Format::kTiff, *dims).ok()) {
      break;
    }
    frames.push_back(*dims);
    const std::size_t next_field = ifd + 2 + std::size_t{12} * in.U16(ifd);
    if (!Has(b, next_field, 4) || in.U32(next_field) == 0) {
      break;
    }
    ifd = in.U32(next_field);
  }
  return frames;
}

}  // namespace ocr::image::internal
