// Answers that are files to keep rather than JSON: the searchable PDF (output_format=pdf), sent
// as application/pdf with Content-Disposition: attachment and a download name made from the
// upload's (client text: only letters, digits, '-', '_' and '.' are kept; never a path).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"
#include "document/document.h"
#include "http/reply.h"

namespace ocr::http {

// "scan 2026.PNG" -> "scan2026.pdf"; "" or nothing usable -> "document.pdf".
std::string PdfDownloadName(std::string_view upload_name);

// The searchable PDF of `document`, read from `bytes` with `options`, as the answer; the
// failure to write it as a Status.
Result<Reply> SearchablePdfReply(std::span<const std::uint8_t> bytes,
                                 const document::DocumentResult& document,
                                 const document::DocumentOptions& options,
                                 std::string_view upload_name);

}  // namespace ocr::http
