// A page's reading written out to the bit, for tests that require two readings to be identical.
// Header-only: only binaries that link ocr_document include it.
#pragma once

#include <sstream>
#include <string>

#include "document/document.h"

namespace ocr::testing {

// The page's size and every line, exactly: its text, its confidence and its box as the bits of
// the floats. Not its page number, so that one image read alone and as page 7 compare equal.
inline std::string ExactLines(const document::DocumentPage& page) {
  std::ostringstream out;
  out << std::hexfloat << page.width << "x" << page.height << "\n";
  for (const pipeline::TextLine& line : page.lines) {
    out << line.text << " " << line.confidence;
    for (const pipeline::Point& p : line.box)
      out << " " << p.x << "," << p.y;
    out << "\n";
  }
  return out.str();
}

}  // namespace ocr::testing
