#include "image/decode.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

// The header parsers below read bytes straight from the network. Every read goes through Has()
// first, offsets are size_t compared against the remaining length (never `offset + n`, which
// could wrap), and every loop is bounded both by the input size and by an explicit cap.

namespace ocr::image {
namespace {

using Bytes = std::span<const std::uint8_t>;

// A real JPEG has a handful of segments before its frame header (APPn, DQT, DHT, COM); even
// ICC profiles split into 255 chunks stay far below this. The cap bounds the walk on inputs
// made of millions of tiny segments.
constexpr int kMaxJpegMarkers = 4096;

// The IFD entries are sorted by tag, so ImageWidth (256) and ImageLength (257) come among the
// first few; real files have a few dozen entries in all.
constexpr std::uint32_t kMaxTiffEntries = 1024;

// "%PDF-" may follow up to this many bytes of junk, as PDF readers accept (PDF 1.7, Annex H).
constexpr std::size_t kMaxPdfJunkBytes = 1024;

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();

struct Dims {
  std::int64_t width = 0;
  std::int64_t height = 0;
};

// True when bytes[offset, offset + n) lies inside the input.
bool Has(Bytes bytes, std::size_t offset, std::size_t n) {
  return offset <= bytes.size() && n <= bytes.size() - offset;
}

// REQUIRES: Has(bytes, offset, width of the read) for each of these.
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

// Display names for messages a person reads ("invalid WebP image: ...").
std::string_view DisplayName(Format format) {
  switch (format) {
    case Format::kJpeg:
      return "JPEG";
    case Format::kPng:
      return "PNG";
    case Format::kWebp:
      return "WebP";
    case Format::kBmp:
      return "BMP";
    case Format::kTiff:
      return "TIFF";
    case Format::kPdf:
      return "PDF";
    case Format::kUnknown:
      break;
  }
  return "unknown";
}

Status Malformed(Format format, std::string_view what) {
  std::string message = "invalid ";
  message += DisplayName(format);
  message += " image: ";
  message += what;
  return {StatusCode::kUndecodableImage, std::move(message)};
}

Status Truncated(Format format, std::string_view where) {
  std::string what = "file is truncated ";
  what += where;
  return Malformed(format, what);
}

// A chunk tag taken from the input, safe to print: non-printable bytes become '?'.
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

Result<Dims> ProbeTiff(Bytes b) {
  if (!Has(b, 0, 8)) {
    return Truncated(Format::kTiff, "inside the header");
  }
  return ProbeTiffIfd(b, TiffReader(b, b[0] == 'M').U32(4), 0);
}

// A probed size that no decoder would accept is corruption, not an image.
Status CheckDims(Format format, const Dims& dims) {
  if (dims.width <= 0 || dims.height <= 0) {
    return Malformed(format, "width or height is zero");
  }
  if (dims.width > kMaxInt || dims.height > kMaxInt) {
    return Malformed(format, "width or height does not fit in 31 bits");
  }
  return Status::Ok();
}

// The frames of a TIFF: the readable IFDs met following the next-IFD links from the header's
// (SubIFDs are not frames), at most `max_frames` of them. Like libtiff's directory walk, the
// walk ends at a link of 0 or at the first link that leads to no readable IFD (out of the file,
// back to an IFD already met, or an IFD without a usable size), so a one-frame file with a stray
// link reads as it always did, and a hostile chain costs at most `max_frames` IFD probes.
// Returns each frame's size, as its IFD declares it.
// REQUIRES: ProbeImage(b) succeeded on this TIFF (its first IFD is readable).
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

// ---- Decoding.

// OpenCV's flags. JPEG is decoded as 8-bit BGR, which also makes OpenCV apply the EXIF
// orientation (it skips it under IMREAD_UNCHANGED). BMP is decoded as BGR too: OpenCV 4.6 reads
// 24-bit files with a 12-byte BITMAPCOREHEADER as gray under IMREAD_UNCHANGED, and BMP alpha is
// rarely meaningful (many writers leave it 0 in opaque images, which compositing would turn
// white). PNG, WebP and TIFF keep their depth and channels so that alpha and 16-bit samples are
// converted here, the way the contract says, rather than by OpenCV (which drops alpha and keeps
// only the high byte of 16-bit samples).
int ImreadFlags(Format format) {
  return format == Format::kJpeg || format == Format::kBmp ? cv::IMREAD_COLOR
                                                           : cv::IMREAD_UNCHANGED;
}

// REQUIRES: src is CV_8UC2 (gray, alpha) or CV_8UC4 (BGRA).
// Composites onto white, so that dark text drawn on a transparent background stays readable
// (the transparent pixels of such images are often black with alpha 0).
cv::Mat CompositeOnWhite(const cv::Mat& src) {
  const int channels = src.channels();
  const int alpha_index = channels - 1;
  cv::Mat out(src.rows, src.cols, CV_8UC3);
  for (int y = 0; y < src.rows; ++y) {
    const auto* s = src.ptr<std::uint8_t>(y);
    auto* d = out.ptr<std::uint8_t>(y);
    for (int x = 0; x < src.cols; ++x, s += channels, d += 3) {
      const std::uint32_t alpha = s[alpha_index];
      for (int c = 0; c < 3; ++c) {
        const std::uint32_t color = s[channels == 2 ? 0 : c];
        // color * a + white * (1 - a), in integers with rounding; at most 255.
        d[c] = static_cast<std::uint8_t>((color * alpha + 255 * (255 - alpha) + 127) / 255);
      }
    }
  }
  return out;
}

// Any depth and channel count OpenCV returns under IMREAD_UNCHANGED -> CV_8UC3.
// May throw cv::Exception (the caller catches it).
Result<cv::Mat> ToBgr8(cv::Mat image, Format format) {
  switch (image.depth()) {
    case CV_8U:
      break;
    case CV_16U:
      image.convertTo(image, CV_8U, 1.0 / 257.0);  // 65535 -> 255 exactly
      break;
    case CV_32F:
    case CV_64F:
      // Float TIFFs carry no range; [0, 1] is the common convention. Out-of-range values saturate.
      image.convertTo(image, CV_8U, 255.0);
      break;
    default:
      return Malformed(format, "only unsigned 8- and 16-bit and float samples are supported");
  }
  switch (image.channels()) {
    case 1:
      cv::cvtColor(image, image, cv::COLOR_GRAY2BGR);
      return image;
    case 2:
    case 4:
      return CompositeOnWhite(image);
    case 3:
      return image;
    default:
      return Malformed(format, std::to_string(image.channels()) + " channels are not supported");
  }
}

// kImageTooLarge when width x height is over `max_pixels`.
// REQUIRES: both in [0, 2^31), so that the product cannot overflow.
Status CheckPixels(std::int64_t width, std::int64_t height, std::int64_t max_pixels) {
  if (width * height <= max_pixels) {
    return Status::Ok();
  }
  return {StatusCode::kImageTooLarge,
          "image is " + std::to_string(width) + "x" + std::to_string(height) + " = " +
              std::to_string(width * height) + " pixels, over the limit of " +
              std::to_string(max_pixels)};
}

// Runs `decode` (an OpenCV decoder call that returns an empty Mat when it rejects the data) and
// makes what it returns continuous CV_8UC3 under the pixel limit. OpenCV's exceptions and running
// out of memory become statuses.
template <typename Decode>
Result<cv::Mat> DecodeWith(Format format, std::int64_t max_pixels, Decode decode) {
  try {
    OCR_ASSIGN_OR_RETURN(cv::Mat decoded, decode());
    if (decoded.empty()) {
      return Malformed(format, "the decoder rejected the data");
    }
    // Belt and braces for a decoder that disagrees with the probe: never hand on more pixels
    // than allowed, even though the memory was already spent.
    OCR_RETURN_IF_ERROR(CheckPixels(decoded.cols, decoded.rows, max_pixels));
    OCR_ASSIGN_OR_RETURN(cv::Mat bgr, ToBgr8(std::move(decoded), format));
    if (!bgr.isContinuous()) {
      bgr = bgr.clone();
    }
    return bgr;
  } catch (const cv::Exception& e) {
    // e.err is OpenCV's one-line reason; what() adds source paths a client has no use for.
    return Malformed(format, "the decoder failed: " + e.err);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory while decoding the image");
  }
}

// An anonymous in-memory file (memfd) holding a copy of some bytes, readable by path through
// /proc/self/fd. OpenCV 4.6 reads the frames of a TIFF after the first only from a file
// (imreadmulti; there is no imdecodemulti), and the container's root file system is read-only,
// so nothing may go to disk. Each path open gets its own file offset, so concurrent readers are
// safe. Not copyable: it owns the descriptor.
class MemoryFile {
 public:
  // Errors: kInternal (the kernel refused the memfd or the copy into it).
  static Result<MemoryFile> Create(Bytes bytes) {
    MemoryFile file(memfd_create("onnxocr-frames", MFD_CLOEXEC));
    if (file.fd_ < 0) {
      return Internal("memfd_create failed: " + std::generic_category().message(errno));
    }
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = write(file.fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        return Internal("writing the in-memory file failed: " +
                        std::generic_category().message(errno));
      }
      done += static_cast<std::size_t>(n);
    }
    return file;
  }

  MemoryFile(MemoryFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  MemoryFile& operator=(MemoryFile&&) = delete;

  ~MemoryFile() {
    if (fd_ >= 0) {
      close(fd_);
    }
  }

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  explicit MemoryFile(int fd) : fd_(fd) {}

  int fd_;
};

}  // namespace

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kJpeg:
      return "jpeg";
    case Format::kPng:
      return "png";
    case Format::kWebp:
      return "webp";
    case Format::kBmp:
      return "bmp";
    case Format::kTiff:
      return "tiff";
    case Format::kPdf:
      return "pdf";
    case Format::kUnknown:
      break;
  }
  return "unknown";
}

Format SniffFormat(Bytes bytes) {
  if (StartsWith(bytes, 0, "\xFF\xD8\xFF")) {
    return Format::kJpeg;
  }
  if (StartsWith(bytes, 0, "\x89PNG\r\n\x1A\n")) {
    return Format::kPng;
  }
  if (StartsWith(bytes, 0, "RIFF") && StartsWith(bytes, 8, "WEBP")) {
    return Format::kWebp;
  }
  if (StartsWith(bytes, 0, "BM")) {
    return Format::kBmp;
  }
  if (StartsWith(bytes, 0, std::string_view("II*\0", 4)) ||
      StartsWith(bytes, 0, std::string_view("MM\0*", 4))) {
    return Format::kTiff;
  }
  for (std::size_t offset = 0; offset <= kMaxPdfJunkBytes; ++offset) {
    if (!Has(bytes, offset, 5)) {
      break;
    }
    if (StartsWith(bytes, offset, "%PDF-")) {
      return Format::kPdf;
    }
  }
  return Format::kUnknown;
}

Result<ImageInfo> ProbeImage(Bytes bytes) {
  const Format format = SniffFormat(bytes);
  Result<Dims> dims = Dims{};
  switch (format) {
    case Format::kJpeg:
      dims = ProbeJpeg(bytes);
      break;
    case Format::kPng:
      dims = ProbePng(bytes);
      break;
    case Format::kWebp:
      dims = ProbeWebp(bytes);
      break;
    case Format::kBmp:
      dims = ProbeBmp(bytes);
      break;
    case Format::kTiff:
      dims = ProbeTiff(bytes);
      break;
    case Format::kPdf:
      return Status(StatusCode::kUnsupportedMediaType,
                    "PDF input is not supported here: PDF documents are handled by the document "
                    "path, not the image decoder");
    case Format::kUnknown:
      return Status(StatusCode::kUnsupportedMediaType,
                    "not a supported image: expected JPEG, PNG, WebP, BMP or TIFF (or a PDF "
                    "where documents are accepted)");
  }
  if (!dims.ok()) {
    return dims.status();
  }
  OCR_RETURN_IF_ERROR(CheckDims(format, *dims));
  return ImageInfo{format, static_cast<int>(dims->width), static_cast<int>(dims->height)};
}

Result<cv::Mat> DecodeImage(Bytes bytes, const DecodeOptions& options) {
  OCR_ASSIGN_OR_RETURN(const ImageInfo info, ProbeImage(bytes));
  // Refused from the header alone, before OpenCV allocates anything: a few hundred bytes can
  // declare 60000 x 60000 pixels. The probe reads the same header fields the decoders read, so
  // the size checked here is the size that would be decoded.
  OCR_RETURN_IF_ERROR(CheckPixels(info.width, info.height, options.max_pixels));
  if (bytes.size() > static_cast<std::size_t>(kMaxInt)) {
    return Malformed(info.format, "file is over 2 GiB");  // cv::Mat sizes are int
  }

  if (info.format == Format::kJpeg) {
    OCR_RETURN_IF_ERROR(CheckJpegIsComplete(bytes));
  }

  return DecodeWith(info.format, options.max_pixels, [&]() -> Result<cv::Mat> {
    // A header over the caller's bytes, no copy. imdecode only reads its input; the const_cast
    // exists because cv::Mat has no constructor taking a const pointer.
    const cv::Mat encoded(1, static_cast<int>(bytes.size()), CV_8UC1,
                          const_cast<std::uint8_t*>(bytes.data()));  // NOLINT
    return cv::imdecode(encoded, ImreadFlags(info.format));
  });
}

Result<int> CountFrames(Bytes bytes, int max_frames) {
  OCR_ASSIGN_OR_RETURN(const ImageInfo info, ProbeImage(bytes));
  if (info.format != Format::kTiff) {
    return 1;
  }
  const auto limit = static_cast<std::size_t>(std::max(max_frames, 0)) + 1;
  return static_cast<int>(TiffFrames(bytes, limit).size());
}

Result<cv::Mat> DecodeFrame(Bytes bytes, int frame, const DecodeOptions& options) {
  if (frame < 0) {
    return InvalidArgument("frame numbers start at 0");
  }
  if (frame == 0) {
    return DecodeImage(bytes, options);
  }
  OCR_ASSIGN_OR_RETURN(const ImageInfo info, ProbeImage(bytes));
  std::vector<Dims> frames;
  if (info.format == Format::kTiff) {
    frames = TiffFrames(bytes, static_cast<std::size_t>(frame) + 1);
  }
  if (frames.size() <= static_cast<std::size_t>(frame)) {
    const std::size_t count = info.format == Format::kTiff ? frames.size() : 1;
    return InvalidArgument("frame " + std::to_string(frame) + " does not exist: the image has " +
                           std::to_string(count) + " frame(s), from 0");
  }
  // The frame's own IFD decides, as the first one does for DecodeImage: frames of one file may
  // differ in size.
  const Dims dims = frames.back();
  OCR_RETURN_IF_ERROR(CheckPixels(dims.width, dims.height, options.max_pixels));
  return DecodeWith(Format::kTiff, options.max_pixels, [&]() -> Result<cv::Mat> {
    OCR_ASSIGN_OR_RETURN(const MemoryFile file, MemoryFile::Create(bytes));
    std::vector<cv::Mat> decoded;
    if (!cv::imreadmulti(file.path(), decoded, frame, 1, ImreadFlags(Format::kTiff)) ||
        decoded.size() != 1) {
      return cv::Mat();
    }
    return std::move(decoded.front());
  });
}

void QuietCodecWarnings() {
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
}

}  // namespace ocr::image
