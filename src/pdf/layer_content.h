// The invisible text layer of one page as PDF content: one text object per word, drawn in render
// mode 3 (neither filled nor stroked) with the glyphless font, at the word's box mapped to the
// page's user space, turned with the line (a line within 5 degrees of an axis is drawn along it,
// on one baseline, which poppler's text extraction needs to read it whole), and scaled
// horizontally so its width matches the box (with the space after it, up to the next word's
// start, so that text extraction puts a space between words). Characters are written as 2-byte
// codes equal to their code points (Identity-H, as Tesseract's text layers are), so one font with
// one identity ToUnicode map serves every page of every file, and OCRmyPDF can graft a page's layer
// with that font onto another file; text extraction gives back the exact text read, in reading
// order. Code points past U+FFFF (which no PP-OCR dictionary holds) are written as U+FFFD. Pure:
// QPDF assembles the file (searchable_pdf.cpp). Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ocr::pdf {

// A word of a text layer: its text and its corners, clockwise from the top-left as it reads, in
// the pixels of the page image it was read from.
struct LayerWord {
  std::string text;                // UTF-8
  std::array<float, 8> corners{};  // x0 y0 (top-left) x1 y1 (top-right) x2 y2 x3 y3
};

// One page's words, line by line in reading order, in the pixels of a width x height image of
// the page.
struct LayerPage {
  int width = 0;
  int height = 0;
  std::vector<std::vector<LayerWord>> lines;
};

// A point of the page image (pixels, y down) in the page's user space (points, y up): for a PDF
// page the frame its rendering showed (crop box, /Rotate); for an image page its own scale.
struct PixelToUser {
  double a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;  // user = (a x + c y + e, b x + d y + f)

  std::array<double, 2> operator()(double x, double y) const {
    return {a * x + c * y + e, b * x + d * y + f};
  }
};

// The font's advance of every code, in text space units of 1/1000 em (the glyphless font's one
// glyph); a word's natural width is this times its codes times the font size.
inline constexpr double kAdvance = 500;

// The content that draws `page`'s layer, with the font as resource `font_name` (e.g. "/f-0-0");
// empty when the page has no word.
std::string LayerContent(const LayerPage& page, const PixelToUser& to_user,
                         const std::string& font_name);

// The font's ToUnicode CMap: every code to the code point of its value (bfrange entries of 256
// codes, UTF-16 surrogates left out).
const std::string& ToUnicodeCMap();

}  // namespace ocr::pdf
