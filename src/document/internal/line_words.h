// A line's words as the archive writers place them (archive_xml.h), and the small geometry and
// XML helpers they share. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "document/document.h"
#include "pipeline/types.h"

namespace ocr::document::internal {

struct PlacedWord {
  std::string text;
  float confidence = 0;  // [0, 1]
  pipeline::Quad box;
};

// The line's own words; when it has none, its text split at spaces with boxes cut from the line's
// box in proportion to their characters (a space counts as one).
std::vector<PlacedWord> LineWords(const pipeline::TextLine& line);

// The axis-aligned box of a quad in whole pixels, grown outward, within [0, width] x [0, height]
// of the page.
struct PixelBox {
  int x0 = 0;
  int y0 = 0;
  int x1 = 0;
  int y1 = 0;
};

PixelBox BoundsOf(const pipeline::Quad& quad, const DocumentPage& page);
PixelBox Union(const PixelBox& a, const PixelBox& b);

// The box around the lines `indices` of `page` (none: an empty box at the origin).
PixelBox BoundsOfLines(const DocumentPage& page, const std::vector<std::size_t>& indices);

}  // namespace ocr::document::internal
