#include "http/answer.h"

#include <utility>

#include "document/searchable_pdf.h"
#include "http/error_mapping.h"
#include "http/response_json.h"

namespace ocr::http {
namespace {

int LineCount(const document::DocumentResult& document) {
  int lines = 0;
  for (const document::DocumentPage& page : document.pages)
    lines += static_cast<int>(page.lines.size());
  return lines;
}

// The document-level fields of the multipart form's answer: {"success": true, "format",
// "page_count", "output" (not for json), "processing_time"}.
nlohmann::json SummaryJson(const document::DocumentResult& document,
                           const document::AnswerShape& shape, double seconds) {
  nlohmann::json out = {{"success", true},
                        {"format", document::OutputFormatName(shape.format)},
                        {"page_count", document.page_count}};
  if (shape.format != document::OutputFormat::kJson)
    out["output"] = document::FormatDocument(document, shape.format, shape.paginate);
  out["processing_time"] = seconds;
  return out;
}

nlohmann::json DocumentJson(const document::DocumentResult& document,
                            const document::AnswerShape& shape, double seconds) {
  nlohmann::json pages = nlohmann::json::array();
  nlohmann::json all_lines = nlohmann::json::array();
  for (const document::DocumentPage& page : document.pages) {
    nlohmann::json page_json = PageJson(page, shape.list_words);
    for (const auto& line : page_json["results"])
      all_lines.push_back(line);
    pages.push_back(std::move(page_json));
  }
  nlohmann::json out = SummaryJson(document, shape, seconds);
  out["pages"] = std::move(pages);
  out["results"] = std::move(all_lines);
  return out;
}

}  // namespace

nlohmann::json AnswerJson(const document::DocumentResult& document,
                          const document::AnswerShape& shape, double seconds, bool one_page) {
  if (one_page) {
    const std::span<const pipeline::TextLine> lines = document.pages.empty()
                                                          ? std::span<const pipeline::TextLine>()
                                                          : document.pages.front().lines;
    return {{"processing_time", seconds}, {"results", LinesToJson(lines, shape.list_words)}};
  }
  return DocumentJson(document, shape, seconds);
}

Result<Reply> AnswerReply(const document::DocumentResult& document,
                          const document::AnswerShape& shape, double seconds, bool one_page,
                          const PdfSource& pdf) {
  Reply reply;
  if (shape.format == document::OutputFormat::kPdf && !one_page) {
    OCR_ASSIGN_OR_RETURN(std::string bytes, document::WriteSearchablePdf(pdf.bytes, document,
                                                                         *pdf.options, shape.pdfa));
    reply = Reply(200, std::move(bytes), "application/pdf");
    reply.headers.emplace_back("Content-Disposition",
                               "attachment; filename=\"" + PdfDownloadName(pdf.upload_name) + "\"");
  } else {
    reply = Reply(200, DumpJson(AnswerJson(document, shape, seconds, one_page)));
  }
  reply.lines = LineCount(document);
  return reply;
}

std::string AnswerSummaryLine(const document::DocumentResult& document,
                              const document::AnswerShape& shape, double seconds) {
  return DumpJson(SummaryJson(document, shape, seconds)) + "\n";
}

std::string PdfDownloadName(std::string_view upload_name) {
  const std::string_view stem = upload_name.substr(0, upload_name.rfind('.'));
  std::string name;
  for (const char c : stem) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    if (keep && name.size() < 64)
      name += c;
  }
  while (!name.empty() && name.front() == '.')
    name.erase(name.begin());
  return (name.empty() ? "document" : name) + ".pdf";
}

}  // namespace ocr::http
