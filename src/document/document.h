// Documents: an image (one page), a multi-frame TIFF (one page per frame) or a PDF (many), read
// page by page. A PDF page with a usable text layer takes its lines from there (source
// "text_layer", with their words) unless force_ocr is set; other pages are rendered and OCR'd
// (source "ocr"), as are images and TIFF frames. Boxes are in the page's pixel coordinates (the
// image's, or the rendering's at the PDF resolution) either way, so results look alike.
// The choice between a PDF page's text layer and OCR is PdfReader::ReadPage in document.cpp; the
// rule for a usable layer is IsUsableTextLayer in text_layer.h.
// Shared by the HTTP API, `onnxocr run` and `onnxocr bench`. Thread-safety: pure functions over a
// const Pipeline.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "common/status.h"
#include "common/task_runner.h"
#include "document/limits.h"
#include "layout/layout.h"
#include "pipeline/pipeline.h"

namespace ocr::document {

struct DocumentOptions {
  pipeline::OcrOptions ocr;
  bool force_ocr = false;  // OCR PDF pages even where they have a text layer
  std::string page_range;  // "" = every page; else as ParsePageRange
  InputLimits limits;
  // Lay each page's lines out into blocks (DocumentPage::blocks). Off for answers that use only
  // the lines (the JSON form): the layout's work, and a text-layer page's rendering for its
  // rulings, are saved, and blocks stay empty. On, an OCR'd page's lines are also cut at a
  // table's column gaps (AnalyzeOcrLayout), as a text layer's always are.
  bool layout = true;
};

struct DocumentPage {
  int page = 0;  // from 0, in the document
  int width = 0;
  int height = 0;
  bool from_text_layer = false;  // "text_layer" rather than "ocr"
  std::vector<pipeline::TextLine> lines;
  std::vector<layout::Block> blocks;  // the lines laid out (layout.h), in reading order
  pipeline::StageTimes times;         // zero for text-layer pages
};

struct DocumentResult {
  int page_count = 0;               // pages in the document
  std::vector<DocumentPage> pages;  // the selected ones, in page order
};

// A document opened once and read one page at a time, in any order and from any threads: how
// the server's jobs and streams spread a long document over its workers page by page. Opening
// reads only headers and the PDF's structure; pages are decoded or rendered when read.
// Thread-safety: Read() is safe from any thread (poppler calls are serialized inside).
class PageReader {
 public:
  // `bytes` is an image or a PDF, told apart by magic bytes; the selected pages are
  // options.page_range's. REQUIRES: bytes outlive the reader.
  // Errors: kUnsupportedMediaType, kInvalidPdf, kEncryptedPdf, kTooManyPages (PDF pages or TIFF
  // frames), kInvalidArgument (page_range), the image probe's errors.
  static Result<std::unique_ptr<PageReader>> Open(std::span<const std::uint8_t> bytes,
                                                  const DocumentOptions& options);

  virtual ~PageReader() = default;

  int page_count() const { return page_count_; }  // pages in the document

  const std::vector<int>& pages() const { return pages_; }  // the selected ones, ascending

  // About the most memory reading the selected pages holds at once, from headers and page sizes
  // without decoding: for each of up to `parallel_pages` pages in flight, the decoded page (with
  // one working copy) and the models' working set. For the server's memory budget.
  // Errors: kInvalidPdf when a page's size cannot be read.
  virtual Result<std::int64_t> EstimateBytes(int parallel_pages) const = 0;

  // Reads pages()[index] with `pipeline`. Its batches run on `runner` (null: the calling thread).
  // Errors: as ReadDocument's for one page; kCancelled when `stop` is requested.
  virtual Result<DocumentPage> Read(std::size_t index, const pipeline::Pipeline& pipeline,
                                    const std::stop_token& stop = {},
                                    TaskRunner* runner = nullptr) const = 0;

 protected:
  PageReader(int page_count, std::vector<int> pages)
      : page_count_(page_count), pages_(std::move(pages)) {}

 private:
  int page_count_;
  std::vector<int> pages_;
};

// Called after each page is read with the pages read so far and the pages to read, from the
// thread that read it (several at once when pages run in parallel): `onnxocr run`'s progress bar.
using PageProgress = std::function<void(std::size_t done, std::size_t total)>;

// Reads the selected pages of `reader` with `pipeline`.
// Errors: those of PageReader::Read; kCancelled (stop requested).
// Pages, and the batches within a page, run on `runner` (null: all on the calling thread).
Result<DocumentResult> ReadDocument(const PageReader& reader, const pipeline::Pipeline& pipeline,
                                    const std::stop_token& stop = {}, TaskRunner* runner = nullptr,
                                    const PageProgress& progress = {});

// Opens `bytes` (an image or a PDF, told apart by magic bytes) and reads it.
// Errors: kUnsupportedMediaType (neither), the image errors of DecodeFrame, kInvalidPdf,
// kEncryptedPdf, kTooManyPages (PDF pages or TIFF frames), kImageTooLarge (a page or frame),
// kInvalidArgument (page_range), kCancelled (stop requested), kInternal (inference).
// Pages, and the batches within a page, run on `runner` (null: all on the calling thread).
Result<DocumentResult> ReadDocument(std::span<const std::uint8_t> bytes,
                                    const pipeline::Pipeline& pipeline,
                                    const DocumentOptions& options,
                                    const std::stop_token& stop = {}, TaskRunner* runner = nullptr,
                                    const PageProgress& progress = {});

// Page `page` of `bytes` (from 0: a PDF page or a TIFF frame) as it is read, decoded or rendered
// at options.limits.pdf_dpi, then made smaller, if need be, so that its longer side is at most
// `max_side` pixels (a PDF page is rendered at that size directly): what a viewer draws the boxes
// of a page's results over, scaled by this image's size over the page's. Errors: those of
// PageReader::Open and of reading a page; kNotFound when the document has no page `page`.
Result<cv::Mat> DrawPage(std::span<const std::uint8_t> bytes, int page, int max_side,
                         const DocumentOptions& options);

// Parses "0-3,7" into sorted, unique page numbers (from 0) below `page_count`.
// kInvalidArgument for bad syntax or when no page is selected.
Result<std::vector<int>> ParsePageRange(std::string_view value, int page_count);

}  // namespace ocr::document
