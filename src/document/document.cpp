#include "document/document.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "common/mutex.h"
#include "common/text.h"
#include "document/text_layer.h"
#include "image/decode.h"
#include "pdf/pdf_document.h"
#include "pdf/scan_resolution.h"

namespace ocr::document {
namespace {

using layout::AnalyzeLayout;
using layout::AnalyzeOcrLayout;
using layout::Block;
using pipeline::Pipeline;
using pipeline::TextLine;

// The decoder's and the PDF reader's views of the one set of limits.
image::DecodeOptions DecodeOptionsFor(const InputLimits& limits) {
  image::DecodeOptions options;
  options.max_pixels = limits.max_image_pixels;
  return options;
}

pdf::PdfLimits PdfLimitsFor(const InputLimits& limits) {
  pdf::PdfLimits pdf;
  pdf.max_pages = limits.max_pages;
  pdf.dpi = limits.pdf_dpi;
  pdf.max_page_pixels = limits.max_image_pixels;
  return pdf;
}

// The pages of a `page_count`-page document that options.page_range selects (all when empty).
Result<std::vector<int>> SelectPages(const DocumentOptions& options, int page_count) {
  if (!options.page_range.empty())
    return ParsePageRange(options.page_range, page_count);
  std::vector<int> pages(static_cast<std::size_t>(page_count));
  std::iota(pages.begin(), pages.end(), 0);
  return pages;
}

// Measured peak working set of one page through det, cls and rec beyond its pixels (resized
// copies, tensors, activations), with margin: docs/benchmarks/throughput.md, "Memory".
constexpr std::int64_t kInferenceBytes = 96ll << 20;
constexpr std::int64_t kBytesPerPixel = 6;  // the BGR page and one working copy of it
// The lowest resolution a scanned PDF page is rendered at for OCR (a fax's coarse mode is 98).
constexpr double kMinScanDpi = 72;

// The estimate of PageReader::EstimateBytes for `pages` selected pages, the largest of
// `largest_page` pixels. A header may claim more pixels than any machine holds (a PNG of 2^31 x
// 2^31): the estimate then saturates at the largest int64, which every budget refuses, instead
// of overflowing into a small or negative one.
std::int64_t PagesInFlightBytes(std::int64_t largest_page, std::size_t pages, int parallel_pages) {
  const std::int64_t in_flight =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(pages), 1, std::max(1, parallel_pages));
  std::int64_t page = 0;
  std::int64_t total = 0;
  if (__builtin_mul_overflow(std::max<std::int64_t>(largest_page, 0), kBytesPerPixel, &page) ||
      __builtin_add_overflow(page, kInferenceBytes, &page) ||
      __builtin_mul_overflow(in_flight, page, &total)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return total;
}

// The resolution a PDF page is read at: a scanned page's own when that is lower than --pdf-dpi
// (more pixels than the scanner saw only blur its letters and cost time), else --pdf-dpi. Never
// below kMinScanDpi, so that a page-sized image of a few pixels still renders.
double ReadingDpi(const std::optional<pdf::ScanResolutions::Scan>& scan,
                  const DocumentOptions& options) {
  const double dpi = options.limits.pdf_dpi;
  return scan ? std::clamp(scan->dpi, std::min(dpi, kMinScanDpi), dpi) : dpi;
}

// Page `page` of `scans` (null when QPDF could not read the file), nullopt when it is no scan.
std::optional<pdf::ScanResolutions::Scan> ScanOf(const pdf::ScanResolutions* scans, int page) {
  return scans ? scans->Of(page) : std::nullopt;
}

// PDF page `page` as read at `dpi` when it is one JPEG over the whole page at that resolution
// (pdf::ScanResolutions::Jpeg): the JPEG's own pixels, which rendering would resample. Empty
// when it is not, or when the JPEG is not what the page's size at `dpi` says (then it renders).
cv::Mat ScanPixels(const std::optional<pdf::ScanResolutions::Scan>& scan,
                   const pdf::PdfDocument& document, int page, double dpi,
                   const DocumentOptions& options) {
  if (!scan || !scan->jpeg || std::abs(scan->dpi - dpi) > 1e-6 * dpi)
    return {};
  const pdf::ScanResolutions::Jpeg& jpeg = *scan->jpeg;
  const std::span<const std::uint8_t> bytes = AsBytes(jpeg.bytes);
  const image::EmbeddingInfo info = image::ProbeEmbedding(bytes);
  if (!info.jpeg_as_is || info.jpeg_components != jpeg.components)
    return {};
  const Result<cv::Size> size = document.PageSize(page);
  Result<cv::Mat> image = image::DecodeImage(bytes, DecodeOptionsFor(options.limits));
  if (!size.ok() || !image.ok())
    return {};
  const double scale = dpi / options.limits.pdf_dpi;
  if (std::abs(image->cols - size->width * scale) > 1.5 ||
      std::abs(image->rows - size->height * scale) > 1.5) {
    return {};
  }
  return std::move(image).value();
}

// What reading any page needs.
struct PageContext {
  const Pipeline& pipeline;
  const DocumentOptions& options;
  const std::stop_token& stop;
  TaskRunner& runner;
};

// OCRs one page image (an image, a TIFF frame or a rendered PDF page) into page `page`.
Result<DocumentPage> OcrPage(int page, const cv::Mat& image, const PageContext& context) {
  // Laid out, the lines are cut at a table's column gaps, found from their words.
  pipeline::OcrOptions ocr_options = context.options.ocr;
  ocr_options.read_words = ocr_options.read_words || context.options.layout;
  OCR_ASSIGN_OR_RETURN(pipeline::OcrResult ocr,
                       context.pipeline.Run(image, ocr_options, context.stop, &context.runner));
  std::vector<Block> blocks;
  if (context.options.layout) {
    blocks = AnalyzeOcrLayout(ocr.lines, image);
    if (!context.options.ocr.read_words) {
      for (TextLine& line : ocr.lines)
        line.words.clear();
    }
  }
  return DocumentPage{
      page, image.cols, image.rows, false, std::move(ocr.lines), std::move(blocks), ocr.times};
}

// The reading of one page of either kind, given the page's context.
class ReaderBase : public PageReader {
 public:
  ReaderBase(int page_count, std::vector<int> pages, const DocumentOptions& options)
      : PageReader(page_count, std::move(pages)), options_(options) {}

  Result<DocumentPage> Read(std::size_t index, const Pipeline& pipeline,
                            const std::stop_token& stop, TaskRunner* runner) const final {
    if (stop.stop_requested())
      return Cancelled();
    InlineTaskRunner inline_runner;
    const PageContext context{pipeline, options_, stop, runner ? *runner : inline_runner};
    return ReadPage(pages().at(index), context);
  }

 protected:
  virtual Result<DocumentPage> ReadPage(int page, const PageContext& context) const = 0;

 private:
  DocumentOptions options_;
};

// An image is one page; a multi-frame TIFF has one page per frame, under the PDF page limit.
class ImageReader final : public ReaderBase {
 public:
  static Result<std::unique_ptr<PageReader>> Open(std::span<const std::uint8_t> bytes,
                                                  const DocumentOptions& options) {
    const InputLimits& limits = options.limits;
    OCR_ASSIGN_OR_RETURN(const int frames, image::CountFrames(bytes, limits.max_pages));
    if (frames > limits.max_pages) {
      const std::string limit = std::to_string(limits.max_pages);
      return Status(StatusCode::kTooManyPages,
                    "the TIFF has more than " + limit + " frames; each frame is a page, and " +
                        "--max-pdf-pages (" + limit + ") caps TIFF frames as it caps PDF pages");
    }
    OCR_ASSIGN_OR_RETURN(std::vector<int> pages, SelectPages(options, frames));
    return std::unique_ptr<PageReader>(new ImageReader(bytes, frames, std::move(pages), options));
  }

 private:
  ImageReader(std::span<const std::uint8_t> bytes, int frames, std::vector<int> pages,
              const DocumentOptions& options)
      : ReaderBase(frames, std::move(pages), options),
        bytes_(bytes),
        decode_(DecodeOptionsFor(options.limits)) {}

  Result<DocumentPage> ReadPage(int frame, const PageContext& context) const override {
    OCR_ASSIGN_OR_RETURN(const cv::Mat image, image::DecodeFrame(bytes_, frame, decode_));
    return OcrPage(frame, image, context);
  }

  Result<std::int64_t> EstimateBytes(int parallel_pages) const override {
    // A TIFF's frames are taken to be the size of its first.
    OCR_ASSIGN_OR_RETURN(const image::ImageInfo info, image::ProbeImage(bytes_));
    return PagesInFlightBytes(std::int64_t{info.width} * info.height, pages().size(),
                              parallel_pages);
  }

  std::span<const std::uint8_t> bytes_;
  image::DecodeOptions decode_;
};

// A PDF page comes from its text layer when that is usable and force_ocr is off, else it is
// rendered and OCR'd. poppler is not thread-safe, so `mu_` serializes everything that touches the
// document; OCR of rendered pages runs in parallel. (One poppler document per thread was tried:
// TSan finds races inside poppler between two documents read on two threads:
// docs/benchmarks/documents-and-archives.md.)
class PdfReader final : public ReaderBase {
 public:
  static Result<std::unique_ptr<PageReader>> Open(std::span<const std::uint8_t> bytes,
                                                  const DocumentOptions& options) {
    OCR_ASSIGN_OR_RETURN(auto document,
                         pdf::PdfDocument::Open(bytes, PdfLimitsFor(options.limits)));
    OCR_ASSIGN_OR_RETURN(std::vector<int> pages, SelectPages(options, document->page_count()));
    const int count = document->page_count();
    // A PDF poppler reads but QPDF does not has its pages rendered at the set resolution.
    Result<std::unique_ptr<pdf::ScanResolutions>> scans = pdf::ScanResolutions::Open(bytes);
    return std::unique_ptr<PageReader>(
        new PdfReader(std::move(document), scans.ok() ? std::move(scans).value() : nullptr, count,
                      std::move(pages), options));
  }

 private:
  PdfReader(std::unique_ptr<pdf::PdfDocument> document, std::unique_ptr<pdf::ScanResolutions> scans,
            int count, std::vector<int> pages, const DocumentOptions& options)
      : ReaderBase(count, std::move(pages), options),
        document_(std::move(document)),
        scans_(std::move(scans)) {}

  Result<DocumentPage> ReadPage(int p, const PageContext& context) const override {
    OCR_ASSIGN_OR_RETURN(LayerOrImage read, ReadLayerOrRender(p, context));
    if (read.page)
      return std::move(*read.page);
    return OcrPage(p, read.image, context);  // outside the lock: OCR runs in parallel
  }

  // A page from its text layer, or else its rendering to OCR.
  struct LayerOrImage {
    std::optional<DocumentPage> page;
    cv::Mat image;
  };

  Result<LayerOrImage> ReadLayerOrRender(int p, const PageContext& context) const EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (!context.options.force_ocr) {
      OCR_ASSIGN_OR_RETURN(TextLayerPage layer, ReadTextLayer(*document_, p));
      if (layer.usable) {
        OCR_ASSIGN_OR_RETURN(const cv::Size size, document_->PageSize(p));
        // Text-layer lines always know their words; like OCR'd lines, they carry them on request.
        if (!context.options.ocr.read_words) {
          for (TextLine& line : layer.lines)
            line.words.clear();
        }
        // Rulings are drawn, not written: the page is rendered for them only when its lines
        // may hold a table (AnalyzeLayout calls this with mu_ still held).
        std::vector<Block> blocks;
        if (context.options.layout) {
          blocks = AnalyzeLayout(layer.lines, [this, p]() NO_THREAD_SAFETY_ANALYSIS {
            Result<cv::Mat> image = document_->RenderPage(p);
            return image.ok() ? std::move(image).value() : cv::Mat();
          });
        }
        return LayerOrImage{
            DocumentPage{
                p, size.width, size.height, true, std::move(layer.lines), std::move(blocks), {}},
            {}};
      }
    }
    const std::optional<pdf::ScanResolutions::Scan> scan = ScanOf(scans_.get(), p);
    const double dpi = ReadingDpi(scan, context.options);
    if (cv::Mat pixels = ScanPixels(scan, *document_, p, dpi, context.options); !pixels.empty())
      return LayerOrImage{std::nullopt, std::move(pixels)};
    OCR_ASSIGN_OR_RETURN(cv::Mat image, document_->RenderPage(p, dpi));
    return LayerOrImage{std::nullopt, std::move(image)};
  }

  Result<std::int64_t> EstimateBytes(int parallel_pages) const override EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    std::int64_t largest_page = 0;
    for (const int p : pages()) {
      OCR_ASSIGN_OR_RETURN(const cv::Size size, document_->PageSize(p));
      largest_page = std::max<std::int64_t>(largest_page, std::int64_t{size.width} * size.height);
    }
    return PagesInFlightBytes(largest_page, pages().size(), parallel_pages);
  }

  // poppler and QPDF are not thread-safe: every call on the document holds mu_.
  mutable Mutex mu_;
  const std::unique_ptr<pdf::PdfDocument> document_ PT_GUARDED_BY(mu_);
  const std::unique_ptr<pdf::ScanResolutions> scans_ PT_GUARDED_BY(mu_);  // null: QPDF failed
};

}  // namespace

Result<std::unique_ptr<PageReader>> PageReader::Open(std::span<const std::uint8_t> bytes,
                                                     const DocumentOptions& options) {
  switch (image::SniffFormat(bytes)) {
    case image::Format::kPdf:
      return PdfReader::Open(bytes, options);
    case image::Format::kUnknown:
      return Status(StatusCode::kUnsupportedMediaType,
                    "the file is neither a supported image (JPEG, PNG, WebP, BMP, TIFF) nor a PDF");
    default:
      return ImageReader::Open(bytes, options);
  }
}

// Pages are independent, so idle workers of the group take some (and a page's batches may spread
// further); the result keeps page order. A page not started before `stop` is requested is not
// read.
Result<DocumentResult> ReadDocument(const PageReader& reader, const Pipeline& pipeline,
                                    const std::stop_token& stop, TaskRunner* runner,
                                    const PageProgress& progress) {
  InlineTaskRunner inline_runner;
  TaskRunner& run = runner ? *runner : inline_runner;
  const std::vector<int>& pages = reader.pages();
  std::vector<Result<DocumentPage>> read(pages.size(), Result<DocumentPage>(Cancelled()));
  std::atomic<std::size_t> done{0};
  run.ParallelFor(pages.size(), [&](size_t i) {
    read[i] = reader.Read(i, pipeline, stop, &run);
    if (progress)
      progress(++done, pages.size());
  });
  DocumentResult doc;
  doc.page_count = reader.page_count();
  for (Result<DocumentPage>& page : read) {
    if (!page.ok())
      return page.status();
    doc.pages.push_back(std::move(page).value());
  }
  return doc;
}

Result<DocumentResult> ReadDocument(std::span<const std::uint8_t> bytes, const Pipeline& pipeline,
                                    const DocumentOptions& options, const std::stop_token& stop,
                                    TaskRunner* runner, const PageProgress& progress) {
  OCR_ASSIGN_OR_RETURN(const std::unique_ptr<PageReader> reader, PageReader::Open(bytes, options));
  return ReadDocument(*reader, pipeline, stop, runner, progress);
}

namespace {

Status NoSuchPage(int page, int page_count) {
  return Status(StatusCode::kNotFound, "the document has " + std::to_string(page_count) +
                                           (page_count == 1 ? " page" : " pages") +
                                           " (from 0); there is no page " + std::to_string(page));
}

cv::Mat FitWithin(cv::Mat image, int max_side) {
  const int side = std::max(image.cols, image.rows);
  if (side <= max_side)
    return image;
  const double scale = static_cast<double>(max_side) / side;
  cv::Mat small;
  cv::resize(image, small,
             cv::Size(std::max(1, static_cast<int>(std::lround(image.cols * scale))),
                      std::max(1, static_cast<int>(std::lround(image.rows * scale)))),
             0, 0, cv::INTER_AREA);
  return small;
}

}  // namespace

Result<cv::Mat> DrawPage(std::span<const std::uint8_t> bytes, int page, int max_side,
                         const DocumentOptions& options) {
  const InputLimits& limits = options.limits;
  switch (image::SniffFormat(bytes)) {
    case image::Format::kPdf: {
      OCR_ASSIGN_OR_RETURN(auto document, pdf::PdfDocument::Open(bytes, PdfLimitsFor(limits)));
      if (page < 0 || page >= document->page_count())
        return NoSuchPage(page, document->page_count());
      // At the resolution the page is read at, so that its boxes fit.
      Result<std::unique_ptr<pdf::ScanResolutions>> scans = pdf::ScanResolutions::Open(bytes);
      double dpi = ReadingDpi(ScanOf(scans.ok() ? scans->get() : nullptr, page), options);
      OCR_ASSIGN_OR_RETURN(const cv::Size size, document->PageSize(page));
      const double side = std::max(size.width, size.height) * dpi / limits.pdf_dpi;
      if (side > max_side)  // rendered small rather than rendered large and shrunk
        dpi *= max_side / side;
      OCR_ASSIGN_OR_RETURN(cv::Mat image, document->RenderPage(page, dpi));
      return FitWithin(std::move(image), max_side);  // rounding may leave a pixel over
    }
    case image::Format::kUnknown:
      return Status(StatusCode::kUnsupportedMediaType,
                    "the file is neither a supported image (JPEG, PNG, WebP, BMP, TIFF) nor a PDF");
    default: {
      OCR_ASSIGN_OR_RETURN(const int frames, image::CountFrames(bytes, limits.max_pages));
      if (page < 0 || page >= frames)
        return NoSuchPage(page, frames);
      OCR_ASSIGN_OR_RETURN(cv::Mat image,
                           image::DecodeFrame(bytes, page, DecodeOptionsFor(limits)));
      return FitWithin(std::move(image), max_side);
    }
  }
}

Result<std::vector<int>> ParsePageRange(std::string_view value, int page_count) {
  auto bad = [] { return InvalidArgument("page_range must look like 0-3,7 (pages from 0)"); };
  std::set<int> pages;
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    auto number = [](std::string_view s, int& out) {
      const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      return ec == std::errc() && p == s.data() + s.size() && !s.empty() && out >= 0;
    };
    const size_t dash = item.find('-');
    int first = 0;
    int last = 0;
    if (dash == std::string_view::npos) {
      if (!number(item, first))
        return bad();
      last = first;
    } else if (!number(item.substr(0, dash), first) || !number(item.substr(dash + 1), last) ||
               last < first) {
      return bad();
    }
    for (int p = first; p <= std::min(last, page_count - 1); ++p)
      pages.insert(p);
  }
  if (pages.empty()) {
    return InvalidArgument("page_range selects no page of this " + std::to_string(page_count) +
                           "-page document");
  }
  return std::vector<int>(pages.begin(), pages.end());
}

}  // namespace ocr::document
