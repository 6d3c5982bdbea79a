#include "http/download.h"

#include <utility>

#include "document/searchable_pdf.h"

namespace ocr::http {

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

Result<Reply> SearchablePdfReply(std::span<const std::uint8_t> bytes,
                                 const document::DocumentResult& document,
                                 const document::DocumentOptions& options,
                                 std::string_view upload_name) {
  OCR_ASSIGN_OR_RETURN(std::string pdf, document::WriteSearchablePdf(bytes, document, options));
  Reply reply(200, std::move(pdf), "application/pdf");
  reply.headers.emplace_back("Content-Disposition",
                             "attachment; filename=\"" + PdfDownloadName(upload_name) + "\"");
  int lines = 0;
  for (const document::DocumentPage& page : document.pages)
    lines += static_cast<int>(page.lines.size());
  reply.lines = lines;
  return reply;
}

}  // namespace ocr::http
