#include "image/decode.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "common/check.h"
#include "image/internal/embedding.h"
#include "image/internal/probe.h"

// The byte parsers of the headers are in image/internal/probe.cpp; this file runs OpenCV's
// decoders on what they accepted.

namespace ocr::image {
namespace {

using internal::Bytes;
using internal::Dims;
using internal::Has;
using internal::kMaxInt;
using internal::Malformed;
using internal::StartsWith;

// "%PDF-" may follow up to this many bytes of junk, as PDF readers accept (PDF 1.7, Annex H).
constexpr std::size_t kMaxPdfJunkBytes = 1024;

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
  OCR_CHECK(src.type() == CV_8UC2 || src.type() == CV_8UC4);
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
  OCR_CHECK(width >= 0 && width <= internal::kMaxInt && height >= 0 && height <= internal::kMaxInt);
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
  return internal::NamesOf(format).api;
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

EmbeddingInfo ProbeEmbedding(Bytes bytes) {
  switch (SniffFormat(bytes)) {
    case Format::kJpeg:
      return internal::ProbeJpegEmbedding(bytes);
    case Format::kPng:
      return internal::ProbePngEmbedding(bytes);
    case Format::kTiff:
      return internal::ProbeTiffEmbedding(bytes);
    default:
      return {};
  }
}

Result<ImageInfo> ProbeImage(Bytes bytes) {
  const Format format = SniffFormat(bytes);
  Result<Dims> dims = Dims{};
  switch (format) {
    case Format::kJpeg:
      dims = internal::ProbeJpeg(bytes);
      break;
    case Format::kPng:
      dims = internal::ProbePng(bytes);
      break;
    case Format::kWebp:
      dims = internal::ProbeWebp(bytes);
      break;
    case Format::kBmp:
      dims = internal::ProbeBmp(bytes);
      break;
    case Format::kTiff:
      dims = internal::ProbeTiff(bytes);
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
  OCR_RETURN_IF_ERROR(internal::CheckDims(format, *dims));
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
    OCR_RETURN_IF_ERROR(internal::CheckJpegIsComplete(bytes));
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
  return static_cast<int>(internal::TiffFrames(bytes, limit).size());
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
    frames = internal::TiffFrames(bytes, static_cast<std::size_t>(frame) + 1);
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
