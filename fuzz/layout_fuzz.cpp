// Fuzz target for document layout (layout.h, tables.h, rulings.h, shading.h) and the writers over
// it: the boxes come from a recognizer reading a client's image, so any geometry is possible. The
// input is a page: a size, rulings and filled areas drawn on it, and lines (a box and one of a few
// texts). Checks: every
// line with text is in exactly one block and no other line is; a table's cells cover its grid
// once, inside it; the Markdown and HTML writers finish.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "common/utf8.h"
#include "document/archive_xml.h"
#include "document/document.h"
#include "document/render.h"
#include "fuzz_support.h"
#include "layout/layout.h"

namespace {

using ocr::layout::Block;
using ocr::layout::BlockType;
using ocr::pipeline::TextLine;

// Texts that steer the layout: empty and blank lines, list markers, numbers, prose, CJK, markup.
constexpr const char* kTexts[] = {"",
                                  " \t",
                                  "- item",
                                  "1. step",
                                  "12) x",
                                  "\u2022 dot",
                                  "2016.",
                                  "3.50",
                                  "-",
                                  "Name",
                                  "表格",
                                  "a | b <c>",
                                  "some words of running text"};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> data) : data_(data) {}

  bool empty() const { return at_ >= data_.size(); }

  std::uint8_t Byte() { return at_ < data_.size() ? data_[at_++] : 0; }

  // A coordinate: mostly on the page (0-252 spread over it), sometimes far off it or not finite.
  float Coordinate(int extent) {
    const std::uint8_t b = Byte();
    if (b == 253) {
      return std::numeric_limits<float>::quiet_NaN();
    }
    if (b >= 254) {
      return b == 254 ? 1e30F : -1e9F;
    }
    return static_cast<float>(b) * static_cast<float>(extent) / 252.0F;
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t at_ = 0;
};

void CheckTable(const ocr::layout::Table& t) {
  OCR_FUZZ_CHECK(t.row_count >= 1 && t.col_count >= 1);
  OCR_FUZZ_CHECK(t.header_rows >= 0 && t.header_rows < t.row_count);
  std::vector<int> covered(static_cast<std::size_t>(t.row_count * t.col_count), 0);
  int previous_row = 0;
  for (const auto& cell : t.cells) {
    OCR_FUZZ_CHECK(cell.row >= previous_row);
    previous_row = cell.row;
    OCR_FUZZ_CHECK(cell.row_span >= 1 && cell.col_span >= 1);
    OCR_FUZZ_CHECK(cell.row + cell.row_span <= t.row_count);
    OCR_FUZZ_CHECK(cell.col + cell.col_span <= t.col_count);
    for (int r = cell.row; r < cell.row + cell.row_span; ++r) {
      for (int c = cell.col; c < cell.col + cell.col_span; ++c) {
        ++covered[static_cast<std::size_t>(r * t.col_count + c)];
      }
    }
  }
  for (int n : covered) {
    OCR_FUZZ_CHECK(n == 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in({data, size});
  const int width = 16 + 8 * (in.Byte() % 64);
  const int height = 16 + 8 * (in.Byte() % 64);
  cv::Mat page(height, width, CV_8UC1, cv::Scalar(255));
  // The low bits say how many rulings are drawn, the high ones how many filled areas (shaded rows,
  // dark headers: what shading.h reads), so inputs from before fills existed draw none.
  const int marks = in.Byte();
  const int rulings = marks % 16;
  const int fills = (marks / 16) % 8;
  for (int i = 0; i < rulings; ++i) {
    const bool horizontal = in.Byte() % 2 == 0;
    const int at = in.Byte() % (horizontal ? height : width);
    const int from = in.Byte() % (horizontal ? width : height);
    const int to = in.Byte() % (horizontal ? width : height);
    if (horizontal) {
      cv::line(page, {from, at}, {to, at}, cv::Scalar(0), 1);
    } else {
      cv::line(page, {at, from}, {at, to}, cv::Scalar(0), 1);
    }
  }
  for (int i = 0; i < fills; ++i) {
    const int x0 = in.Byte() % width;
    const int y0 = in.Byte() % height;
    const int x1 = in.Byte() % width;
    const int y1 = in.Byte() % height;
    cv::rectangle(page, cv::Point(x0, y0), cv::Point(x1, y1), cv::Scalar(in.Byte()), cv::FILLED);
  }
  std::vector<TextLine> lines;
  while (!in.empty() && lines.size() < 200) {
    TextLine line;
    line.text = kTexts[in.Byte() % std::size(kTexts)];
    for (auto& p : line.box) {
      p.x = in.Coordinate(width);
      p.y = in.Coordinate(height);
    }
    lines.push_back(std::move(line));
  }

  const std::vector<Block> blocks = ocr::layout::AnalyzeLayout(lines, [&page]() { return page; });
  std::multiset<std::size_t> seen;
  for (const Block& block : blocks) {
    if (block.type == BlockType::kTable) {
      CheckTable(block.table);
    } else {
      OCR_FUZZ_CHECK(!block.rows.empty());
    }
    for (std::size_t index : block.Lines()) {
      OCR_FUZZ_CHECK(index < lines.size());
      seen.insert(index);
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const bool has_text = !ocr::layout::NormalizeText(lines[i].text).empty();
    OCR_FUZZ_CHECK(seen.count(i) == (has_text ? 1U : 0U));
  }
  const std::string markdown = ocr::document::FormatMarkdown(lines, blocks);
  const std::string html = ocr::document::FormatHtml(lines, blocks);
  OCR_FUZZ_CHECK(blocks.empty() || (!markdown.empty() && !html.empty()));

  // The archive formats over the same page: every line with text becomes exactly one ocr_line
  // and at most one TextLine, and no markup from the text leaks into them.
  ocr::document::DocumentResult doc;
  doc.page_count = 1;
  doc.pages.push_back({0, width, height, false, lines, blocks, {}});
  const std::string hocr = ocr::document::FormatHocr(doc);
  const std::string alto = ocr::document::FormatAlto(doc);
  std::size_t hocr_lines = 0;
  for (std::size_t at = 0; (at = hocr.find("class='ocr_line'", at)) != std::string::npos; ++at)
    ++hocr_lines;
  OCR_FUZZ_CHECK(hocr_lines == seen.size());
  for (const std::string* xml : {&hocr, &alto}) {
    OCR_FUZZ_CHECK(ocr::IsValidUtf8(*xml));
    for (const char c : *xml)
      OCR_FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t');
  }
  return 0;
}
