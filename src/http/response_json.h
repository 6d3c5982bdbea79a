// The parts of the API's JSON shapes (spec/API.md section 3) built from pipeline results: lines,
// blocks and pages, which answer.h assembles into answers and streams send page by page. JSON
// lives only in http/; the CLI prints through these too, so both speak exactly the same format.
// Thread-safety: pure functions.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "document/document.h"
#include "document/render.h"
#include "pipeline/types.h"

namespace ocr::http {

// [{"text", "confidence", "bounding_box": [[x,y] x4]}, ...]; with `words` (return_word_boxes)
// each line also has "words": [{"text", "confidence", "bounding_box"}] (possibly empty).
nlohmann::json LinesToJson(std::span<const pipeline::TextLine> lines, bool words = false);

// A page's blocks in reading order: [{"type": "paragraph"|"heading"|"list_item"|"table", "bbox":
// [left, top, right, bottom], "lines": indices into the page's results}], with "level" for
// headings, "ordered" for list items, and "rows", "columns", "header_rows" and "cells": [{"row",
// "col", "row_span", "col_span", "lines"}] (row-major) for tables.
nlohmann::json BlocksJson(std::span<const layout::Block> blocks);

// One page of a document answer: {"page", "width", "height", "source", "results", "blocks"}.
nlohmann::json PageJson(const document::DocumentPage& page, bool words = false);

}  // namespace ocr::http
