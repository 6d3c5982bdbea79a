#include "pipeline/document.h"

#include <charconv>
#include <set>

#include "image/decode.h"

namespace ocr::pipeline {
namespace {

std::string PageSeparator(int page) {
  return "\n{" + std::to_string(page) + "}" + std::string(48, '-') + "\n\n";
}

Result<DocumentResult> ReadImage(std::span<const std::uint8_t> bytes, const Pipeline& pipeline,
                                 const DocumentOptions& options, const std::stop_token& stop) {
  if (!options.page_range.empty()) {
    OCR_RETURN_IF_ERROR(ParsePageRange(options.page_range, 1).status());
  }
  image::DecodeOptions decode;
  decode.max_pixels = options.max_image_pixels;
  OCR_ASSIGN_OR_RETURN(cv::Mat image, image::DecodeImage(bytes, decode));
  if (stop.stop_requested())
    return Cancelled();
  OCR_ASSIGN_OR_RETURN(OcrResult ocr, pipeline.Run(image, options.ocr, stop));
  DocumentResult doc;
  doc.page_count = 1;
  doc.pages.push_back({0, image.cols, image.rows, false, std::move(ocr.lines), ocr.times});
  return doc;
}

Result<DocumentResult> ReadPdf(std::span<const std::uint8_t> bytes, const Pipeline& pipeline,
                               const DocumentOptions& options, const std::stop_token& stop) {
  pdf::PdfLimits limits;
  limits.max_pages = options.max_pdf_pages;
  limits.dpi = options.pdf_dpi;
  limits.max_page_pixels = options.max_image_pixels;
  OCR_ASSIGN_OR_RETURN(auto document, pdf::PdfDocument::Open(bytes, limits));
  DocumentResult doc;
  doc.page_count = document->page_count();
  std::vector<int> pages;
  if (options.page_range.empty()) {
    for (int p = 0; p < doc.page_count; ++p)
      pages.push_back(p);
  } else {
    OCR_ASSIGN_OR_RETURN(pages, ParsePageRange(options.page_range, doc.page_count));
  }
  for (int p : pages) {
    if (stop.stop_requested())
      return Cancelled();
    DocumentPage page;
    page.page = p;
    OCR_ASSIGN_OR_RETURN(cv::Size size, document->PageSize(p));
    page.width = size.width;
    page.height = size.height;
    if (!options.force_ocr) {
      OCR_ASSIGN_OR_RETURN(pdf::TextLayerPage layer, document->TextLayer(p));
      if (layer.usable) {
        page.from_text_layer = true;
        page.lines = std::move(layer.lines);
        doc.pages.push_back(std::move(page));
        continue;
      }
    }
    OCR_ASSIGN_OR_RETURN(cv::Mat image, document->RenderPage(p));
    OCR_ASSIGN_OR_RETURN(OcrResult ocr, pipeline.Run(image, options.ocr, stop));
    page.lines = std::move(ocr.lines);
    page.times = ocr.times;
    doc.pages.push_back(std::move(page));
  }
  return doc;
}

}  // namespace

Result<DocumentResult> ReadDocument(std::span<const std::uint8_t> bytes, const Pipeline& pipeline,
                                    const DocumentOptions& options, std::stop_token stop) {
  switch (image::SniffFormat(bytes)) {
    case image::Format::kPdf:
      return ReadPdf(bytes, pipeline, options, stop);
    case image::Format::kUnknown:
      return Status(StatusCode::kUnsupportedMediaType,
                    "the file is neither a supported image (JPEG, PNG, WebP, BMP, TIFF) nor a PDF");
    default:
      return ReadImage(bytes, pipeline, options, stop);
  }
}

std::string FormatDocument(const DocumentResult& document, OutputFormat format, bool paginate) {
  std::string out;
  for (const DocumentPage& page : document.pages) {
    if (paginate)
      out += PageSeparator(page.page);
    std::string text = FormatLines(format, page.lines);
    // Pages follow each other as blocks, separated by a blank line when not paginated.
    if (!paginate && !out.empty() && !text.empty())
      out += "\n";
    out += text;
  }
  return out;
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

}  // namespace ocr::pipeline
