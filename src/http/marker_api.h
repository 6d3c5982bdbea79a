// The answers of marker's API server (datalab-to/marker, scripts/server.py), so that a client
// written for it works with only its base URL changed: POST /marker/upload's
// {"format", "output", "images", "metadata", "success"}, with marker's output formats. `json` and
// `chunks` are marker's JSONOutput and ChunkOutput as JSON text: a Document of Pages whose
// children are our text lines (block_type "Line", in reading order), each with its polygon, bbox
// and HTML; coordinates are the page's pixels (marker's are PDF points for PDFs).
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "document/document.h"

namespace ocr::http {

enum class MarkerFormat { kMarkdown, kHtml, kJson, kChunks };

// "markdown", "html", "json" or "chunks" (marker's four; case-insensitive). kInvalidArgument
// listing them otherwise.
Result<MarkerFormat> ParseMarkerFormat(std::string_view name);

std::string_view MarkerFormatName(MarkerFormat format);

// marker's {"format", "output", "images": {}, "metadata": {"table_of_contents": [],
// "page_stats": [...]}, "success": true}. No embedded images are extracted, so `images` is empty;
// page_stats name how each page's text was obtained in marker's words: "pdftext" (the PDF's text
// layer) or "surya" (OCR).
nlohmann::ordered_json MarkerResponseJson(const document::DocumentResult& document,
                                          MarkerFormat format, bool paginate);

}  // namespace ocr::http
