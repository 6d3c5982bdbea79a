// Fuzz target for image sniffing, header probing, frame counting and decoding (image/decode.h)
// under a small pixel limit, and for the hand parsers under them (image/internal/probe.h). Checked:
// the probe agrees with the sniffer, and reports a positive size or a documented error; every
// format's header parser, run on every input whatever its magic bytes, returns a size or an error
// naming its format, and on the sniffed format reads what the probe read; a decoded image is
// non-empty CV_8UC3 BGR within the limit and has the size the probe read (or turned by the
// orientation of a JPEG or TIFF), since the limit is enforced on the probe; only a TIFF has
// several frames, and its second frame decodes within the limit too; the resolution and JPEG
// embedding fields (image/internal/embedding.h) are stated whole or not at all.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "fuzz_support.h"
#include "image/decode.h"
#include "image/internal/embedding.h"
#include "image/internal/probe.h"

namespace {

using ocr::StatusCode;
using ocr::image::Format;
using ocr::image::internal::Dims;

constexpr ocr::image::DecodeOptions kOptions{.max_pixels = 4'000'000};
constexpr int kMaxFrames = 4;

void CheckProbe(Format format, const ocr::Result<ocr::image::ImageInfo>& info) {
  if (format == Format::kUnknown || format == Format::kPdf) {
    OCR_FUZZ_CHECK(!info.ok() && info.status().code() == StatusCode::kUnsupportedMediaType);
    return;
  }
  if (info.ok()) {
    OCR_FUZZ_CHECK(info->format == format);
    OCR_FUZZ_CHECK(info->width > 0 && info->height > 0);
  } else {
    OCR_FUZZ_CHECK(info.status().code() == StatusCode::kUndecodableImage);
  }
}

void CheckBgr(const cv::Mat& image) {
  OCR_FUZZ_CHECK(!image.empty());
  OCR_FUZZ_CHECK(image.type() == CV_8UC3);
  OCR_FUZZ_CHECK(image.isContinuous());
  OCR_FUZZ_CHECK(static_cast<std::int64_t>(image.total()) <= kOptions.max_pixels);
}

void CheckDecoded(const ocr::image::ImageInfo& info, const cv::Mat& image) {
  CheckBgr(image);
  const bool as_probed = image.cols == info.width && image.rows == info.height;
  // Orientations 5 to 8 transpose the image: a JPEG's EXIF tag, and a TIFF's own Orientation tag,
  // which OpenCV's TIFF reader applies even under IMREAD_UNCHANGED (regression input
  // tiff_orientation_8_transposes).
  const bool turned = image.cols == info.height && image.rows == info.width;
  OCR_FUZZ_CHECK(as_probed ||
                 (turned && (info.format == Format::kJpeg || info.format == Format::kTiff)));
}

// A parser's error names its format the way every decode error does.
void CheckParserError(Format format, const ocr::Status& status) {
  OCR_FUZZ_CHECK(status.code() == StatusCode::kUndecodableImage);
  const std::string prefix =
      "invalid " + std::string(ocr::image::internal::NamesOf(format).display) + " image: ";
  OCR_FUZZ_CHECK(status.message().starts_with(prefix));
}

// Each format's header parser on the input, whatever its magic bytes, so the parsers are fuzzed
// without the fuzzer first finding each signature. On the sniffed format, ProbeImage is exactly
// that parser followed by CheckDims.
void CheckHeaderParsers(std::span<const std::uint8_t> bytes, Format format,
                        const ocr::Result<ocr::image::ImageInfo>& info) {
  namespace internal = ocr::image::internal;

  const struct {
    Format format;
    ocr::Result<Dims> (*parse)(internal::Bytes);
  } parsers[] = {
      {Format::kJpeg, internal::ProbeJpeg}, {Format::kPng, internal::ProbePng},
      {Format::kWebp, internal::ProbeWebp}, {Format::kBmp, internal::ProbeBmp},
      {Format::kTiff, internal::ProbeTiff},
  };

  for (const auto& parser : parsers) {
    const ocr::Result<Dims> dims = parser.parse(bytes);
    if (dims.ok()) {
      OCR_FUZZ_CHECK(dims->width >= 0 && dims->height >= 0);
    } else {
      CheckParserError(parser.format, dims.status());
    }
    if (parser.format != format) {
      continue;
    }
    if (info.ok()) {
      OCR_FUZZ_CHECK(dims.ok() && dims->width == info->width && dims->height == info->height);
    } else if (dims.ok()) {
      OCR_FUZZ_CHECK(internal::CheckDims(format, *dims).message() == info.status().message());
    } else {
      OCR_FUZZ_CHECK(dims.status().message() == info.status().message());
    }
  }

  const ocr::Status complete = internal::CheckJpegIsComplete(bytes);
  if (!complete.ok()) {
    CheckParserError(Format::kJpeg, complete);
  }

  // TiffFrames needs only a TIFF header that ProbeTiff read, not the TIFF magic.
  const ocr::Result<Dims> tiff = internal::ProbeTiff(bytes);
  if (!tiff.ok()) {
    return;
  }
  constexpr auto kFrameLimit = static_cast<std::size_t>(kMaxFrames) + 1;
  const std::vector<Dims> frames = internal::TiffFrames(bytes, kFrameLimit);
  OCR_FUZZ_CHECK(frames.size() <= kFrameLimit);
  OCR_FUZZ_CHECK(frames.empty() == !internal::CheckDims(Format::kTiff, *tiff).ok());
  for (const Dims& frame : frames) {
    OCR_FUZZ_CHECK(internal::CheckDims(Format::kTiff, frame).ok());
  }
  if (!frames.empty()) {
    OCR_FUZZ_CHECK(frames.front().width == tiff->width && frames.front().height == tiff->height);
  }
  if (format == Format::kTiff && info.ok()) {
    const ocr::Result<int> count = ocr::image::CountFrames(bytes, kMaxFrames);
    OCR_FUZZ_CHECK(count.ok() && *count == static_cast<int>(frames.size()));
  }
}

// A later frame has its own header, so only the generic invariants apply to it.
void CheckFrames(std::span<const std::uint8_t> bytes, Format format,
                 const ocr::Result<ocr::image::ImageInfo>& info) {
  const ocr::Result<int> frames = ocr::image::CountFrames(bytes, kMaxFrames);
  if (!frames.ok()) {
    OCR_FUZZ_CHECK(!info.ok() ? frames.status().code() == info.status().code()
                              : frames.status().code() == StatusCode::kUndecodableImage);
    return;
  }
  OCR_FUZZ_CHECK(info.ok());
  OCR_FUZZ_CHECK(*frames >= 1 && *frames <= kMaxFrames + 1);
  OCR_FUZZ_CHECK(*frames == 1 || format == Format::kTiff);
  if (*frames <= kMaxFrames) {
    OCR_FUZZ_CHECK(ocr::image::DecodeFrame(bytes, *frames, kOptions).status().code() ==
                   StatusCode::kInvalidArgument);
  }
  if (*frames > 1) {
    const ocr::Result<cv::Mat> second = ocr::image::DecodeFrame(bytes, 1, kOptions);
    if (second.ok())
      CheckBgr(*second);
  }
}

// The embedding fields, of every format's parser whatever the magic bytes: a resolution is
// stated in full (both axes, plausible) or not at all; a JPEG kept as it is has 1 or 3
// components.
void CheckEmbedding(std::span<const std::uint8_t> bytes) {
  using ocr::image::EmbeddingInfo;
  for (const EmbeddingInfo& e :
       {ocr::image::ProbeEmbedding(bytes), ocr::image::internal::ProbeJpegEmbedding(bytes),
        ocr::image::internal::ProbePngEmbedding(bytes),
        ocr::image::internal::ProbeTiffEmbedding(bytes)}) {
    OCR_FUZZ_CHECK((e.dpi_x == 0) == (e.dpi_y == 0));
    OCR_FUZZ_CHECK(e.dpi_x == 0 || (e.dpi_x >= 1 && e.dpi_x < 100'000));
    OCR_FUZZ_CHECK(e.dpi_y == 0 || (e.dpi_y >= 1 && e.dpi_y < 100'000));
    OCR_FUZZ_CHECK(!e.jpeg_as_is || e.jpeg_components == 1 || e.jpeg_components == 3);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  ocr::image::QuietCodecWarnings();  // one warning per bad input would drown the fuzzer's output
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const Format format = ocr::image::SniffFormat(bytes);
  OCR_FUZZ_CHECK(!ocr::image::FormatName(format).empty());
  const auto info = ocr::image::ProbeImage(bytes);
  CheckProbe(format, info);
  CheckHeaderParsers(bytes, format, info);
  CheckFrames(bytes, format, info);
  CheckEmbedding(bytes);

  const auto image = ocr::image::DecodeImage(bytes, kOptions);
  if (image.ok()) {
    OCR_FUZZ_CHECK(info.ok());  // decoding starts with the same probe
    CheckDecoded(*info, *image);
    return 0;
  }
  const StatusCode code = image.status().code();
  if (!info.ok()) {
    OCR_FUZZ_CHECK(code == info.status().code());
  } else if (std::int64_t{info->width} * info->height > kOptions.max_pixels) {
    OCR_FUZZ_CHECK(code == StatusCode::kImageTooLarge);
  } else {
    OCR_FUZZ_CHECK(code == StatusCode::kUndecodableImage || code == StatusCode::kImageTooLarge ||
                   code == StatusCode::kResourceExhausted);
  }
  OCR_FUZZ_CHECK(!image.status().message().empty());
  return 0;
}
