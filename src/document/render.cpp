// The text, Markdown and HTML writers over layout.h's paragraphs.
#include "document/render.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"
#include "document/archive_xml.h"
#include "layout/layout.h"

namespace ocr::document {
namespace {

using layout::AnalyzeLayout;
using layout::Block;
using layout::BlockType;
using layout::ListMarker;
using layout::NormalizeText;
using layout::Table;
using layout::TableCell;
using layout::TextRows;
using pipeline::TextLine;

// Backslash-escapes every ASCII punctuation character that can start or close Markdown markup
// (CommonMark lets any ASCII punctuation be escaped, so this never shows a stray backslash): the
// requested set, plus '~' (fenced code, strikethrough) and '&' (entity references such as
// "&copy;"). The only other block-level trigger a paragraph's first characters can hold is an
// ordered-list marker ("1." or "1)"), whose punctuation is escaped there.
//
// Inside a table cell (`block_start` false) nothing starts a block: numbers keep their dots.
std::string EscapeMarkdown(std::string_view text, bool block_start = true) {
  constexpr std::string_view kSpecial = "\\`*_{}[]<>#+-|!~&";
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  const bool list_marker = block_start && digits > 0 && digits < text.size() &&
                           (text[digits] == '.' || text[digits] == ')');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (kSpecial.find(text[i]) != std::string_view::npos || (list_marker && i == digits)) {
      out += '\\';
    }
    out += text[i];
  }
  return out;
}

// The normalized text of a block's first line.
std::string FirstText(std::span<const TextLine> lines, const TextRows& rows) {
  return rows.empty() || rows.front().empty() ? std::string()
                                              : NormalizeText(lines[rows.front().front()].text);
}

// The rows' texts: lines of a row joined by a space, rows by `separator`.
std::string RowsText(std::span<const TextLine> lines, const TextRows& rows,
                     std::string_view separator) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) {
      out += separator;
    }
    for (std::size_t i = 0; i < rows[r].size(); ++i) {
      if (i > 0) {
        out += ' ';
      }
      out += NormalizeText(lines[rows[r][i]].text);
    }
  }
  return out;
}

// The rows as HTML: each line escaped, lines of a row joined by a space, rows by <br>. The first
// `skip` bytes of the first line (a list marker) are left out.
std::string RowsHtml(std::span<const TextLine> lines, const TextRows& rows, std::size_t skip = 0) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) {
      out += "<br>";
    }
    for (std::size_t i = 0; i < rows[r].size(); ++i) {
      if (i > 0) {
        out += ' ';
      }
      const std::string text = NormalizeText(lines[rows[r][i]].text);
      const std::size_t from = r == 0 && i == 0 ? std::min(skip, text.size()) : 0;
      out += EscapeHtml(std::string_view{text}.substr(from));
    }
  }
  return out;
}

std::string ListItemMarkdown(std::span<const TextLine> lines, const Block& block) {
  const std::string text = RowsText(lines, block.rows, " ");
  int number = 0;
  const std::size_t marker = ListMarker(text, &number);
  const std::string rest = EscapeMarkdown(std::string_view{text}.substr(marker));
  return block.ordered ? std::to_string(number) + ". " + rest : "- " + rest;
}

// A table as HTML: <thead> for its header rows (cells <th>) when it has any, <tbody> for the rest;
// rowspan and colspan where a cell spans; a cell's rows joined by <br>.
std::string TableHtml(std::span<const TextLine> lines, const Table& table) {
  std::string out = "<table>\n";
  std::size_t next = 0;  // cells are row-major by origin
  for (int r = 0; r < table.row_count; ++r) {
    const bool header = r < table.header_rows;
    if (r == 0 && header) {
      out += "<thead>\n";
    }
    if (r == table.header_rows) {
      out += "<tbody>\n";
    }
    out += "<tr>";
    for (; next < table.cells.size() && table.cells[next].row == r; ++next) {
      const TableCell& cell = table.cells[next];
      const std::string_view tag = header ? "th" : "td";
      out += "<" + std::string(tag);
      if (cell.row_span > 1) {
        out += " rowspan=\"" + std::to_string(cell.row_span) + "\"";
      }
      if (cell.col_span > 1) {
        out += " colspan=\"" + std::to_string(cell.col_span) + "\"";
      }
      out += ">" + RowsHtml(lines, cell.rows) + "</" + std::string(tag) + ">";
    }
    out += "</tr>\n";
    if (header && r + 1 == table.header_rows) {
      out += "</thead>\n";
    }
  }
  out += "</tbody>\n</table>";
  return out;
}

// A table as a GitHub-flavoured pipe table: the first row is the header row, "|" escaped, a
// cell's rows joined by <br>. Spanning cells, which a pipe table cannot express, make it an HTML
// table, which GFM allows in Markdown.
std::string TableMarkdown(std::span<const TextLine> lines, const Table& table) {
  const bool spans = std::any_of(table.cells.begin(), table.cells.end(), [](const TableCell& c) {
    return c.row_span > 1 || c.col_span > 1;
  });
  if (spans) {
    return TableHtml(lines, table);
  }
  std::vector<std::vector<std::string>> grid(
      static_cast<std::size_t>(table.row_count),
      std::vector<std::string>(static_cast<std::size_t>(table.col_count)));
  for (const TableCell& cell : table.cells) {
    std::string text;
    for (std::size_t r = 0; r < cell.rows.size(); ++r) {
      if (r > 0) {
        text += "<br>";
      }
      text += EscapeMarkdown(RowsText(lines, TextRows{cell.rows[r]}, " "), false);
    }
    grid[static_cast<std::size_t>(cell.row)][static_cast<std::size_t>(cell.col)] = text;
  }
  std::string out;
  for (std::size_t r = 0; r < grid.size(); ++r) {
    out += "|";
    for (const std::string& text : grid[r]) {
      out += " " + text + " |";
    }
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t c = 0; c < grid[r].size(); ++c) {
        out += " --- |";
      }
      out += "\n";
    }
  }
  out.pop_back();  // the block's newline is the caller's
  return out;
}

// A field of RFC 4180: quoted, its quotes doubled, when it holds a quote, a comma or a line break.
std::string CsvField(std::string_view text) {
  if (text.find_first_of("\",\r\n") == std::string_view::npos)
    return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    out += c;
    if (c == '"')
      out += '"';
  }
  return out + "\"";
}

// A table as CSV rows, CRLF after each: a cell's rows joined by spaces at its origin, the other
// positions it spans empty, as a spreadsheet shows merged cells.
std::string TableCsv(std::span<const TextLine> lines, const Table& table) {
  const auto cols = static_cast<std::size_t>(table.col_count);
  std::vector<std::string> grid(static_cast<std::size_t>(table.row_count) * cols);
  for (const TableCell& cell : table.cells)
    grid[static_cast<std::size_t>(cell.row) * cols + static_cast<std::size_t>(cell.col)] =
        CsvField(RowsText(lines, cell.rows, " "));
  std::string out;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    out += grid[i];
    out += (i + 1) % cols == 0 ? "\r\n" : ",";
  }
  return out;
}

// Every table of the pages as CSV, a blank line between tables; empty for none.
std::string TablesCsv(std::span<const DocumentPage> pages) {
  std::string out;
  for (const DocumentPage& page : pages) {
    for (const Block& block : PageBlocks(page)) {
      if (block.type != BlockType::kTable || block.table.col_count <= 0)
        continue;
      if (!out.empty())
        out += "\r\n";
      out += TableCsv(page.lines, block.table);
    }
  }
  return out;
}

// marker's page rule: "{N}" and 48 dashes, with a blank line on either side.
const std::string kPageRule(48, '-');

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// Paginated text or Markdown exactly as marker's server writes it (its MarkdownRenderer): each
// page preceded by "\n\n{N}" + the rule + "\n\n", runs of three or more newlines made a blank
// line, the ends stripped, then "\n\n" in front (and behind a last page with no text).
std::string PaginateLikeMarker(const DocumentResult& document, OutputFormat format) {
  std::string joined;
  for (const DocumentPage& page : document.pages)
    joined +=
        "\n\n{" + std::to_string(page.page) + "}" + kPageRule + "\n\n" + FormatPage(format, page);
  std::string out;
  out.reserve(joined.size() + 4);
  out += "\n\n";
  std::size_t newlines = 0;
  for (char c : joined) {
    newlines = c == '\n' ? newlines + 1 : 0;
    if (newlines <= 2)
      out += c;
  }
  std::size_t begin = 2;
  while (begin < out.size() && IsSpace(out[begin]))
    ++begin;
  out.erase(2, begin - 2);
  while (out.size() > 2 && IsSpace(out.back()))
    out.pop_back();
  if (out.ends_with(kPageRule))
    out += "\n\n";
  return out;
}

// A whole HTML5 document around the pages' HTML; paginated, each page is marker's
// <div class='page' data-page-id='N'>.
std::string HtmlDocument(const DocumentResult& document, bool paginate) {
  std::string out = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body>\n";
  for (const DocumentPage& page : document.pages) {
    if (paginate)
      out += "<div class='page' data-page-id='" + std::to_string(page.page) + "'>\n";
    out += FormatPage(OutputFormat::kHtml, page);
    if (paginate)
      out += "</div>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace

std::string FormatText(std::span<const TextLine> lines) {
  std::string out;
  for (const TextLine& line : lines) {
    out += NormalizeText(line.text);
    out += '\n';
  }
  return out;
}

std::string FormatMarkdown(std::span<const TextLine> lines, std::span<const Block> blocks) {
  std::string out;
  const Block* previous = nullptr;
  for (const Block& block : blocks) {
    // Blocks are separated by a blank line; the items of one list follow each other.
    const bool same_list = previous != nullptr && previous->type == BlockType::kListItem &&
                           block.type == BlockType::kListItem && previous->ordered == block.ordered;
    if (!out.empty() && !same_list) {
      out += '\n';
    }
    previous = &block;
    switch (block.type) {
      case BlockType::kParagraph:
        out += EscapeMarkdown(RowsText(lines, block.rows, " "));
        break;
      case BlockType::kHeading:
        out += std::string(static_cast<std::size_t>(std::clamp(block.level, 1, 6)), '#') + " " +
               EscapeMarkdown(RowsText(lines, block.rows, " "));
        break;
      case BlockType::kListItem:
        out += ListItemMarkdown(lines, block);
        break;
      case BlockType::kTable:
        out += TableMarkdown(lines, block.table);
        break;
    }
    out += '\n';
  }
  return out;
}

std::string BlockText(std::span<const TextLine> lines, const Block& block) {
  if (block.type != BlockType::kTable) {
    return RowsText(lines, block.rows, " ");
  }
  std::string out;
  for (const TableCell& cell : block.table.cells) {
    if (!cell.rows.empty()) {
      out += (out.empty() ? "" : " ") + RowsText(lines, cell.rows, " ");
    }
  }
  return out;
}

std::string BlockHtml(std::span<const TextLine> lines, const Block& block) {
  switch (block.type) {
    case BlockType::kParagraph:
      return "<p>" + RowsHtml(lines, block.rows) + "</p>";
    case BlockType::kHeading: {
      // A heading wrapped over two lines is still one title: its lines join with a space.
      const std::string tag = "h" + std::to_string(std::clamp(block.level, 1, 6));
      return "<" + tag + ">" + EscapeHtml(RowsText(lines, block.rows, " ")) + "</" + tag + ">";
    }
    case BlockType::kListItem:
      return "<li>" + RowsHtml(lines, block.rows, ListMarker(FirstText(lines, block.rows))) +
             "</li>";
    case BlockType::kTable:
      return TableHtml(lines, block.table);
  }
  return {};
}

std::string FormatHtml(std::span<const TextLine> lines, std::span<const Block> blocks) {
  std::string out;
  const Block* list = nullptr;  // the first item of the open list
  auto close_list = [&]() {
    if (list != nullptr) {
      out += list->ordered ? "</ol>\n" : "</ul>\n";
      list = nullptr;
    }
  };
  for (const Block& block : blocks) {
    const bool item = block.type == BlockType::kListItem;
    if (list != nullptr && (!item || list->ordered != block.ordered)) {
      close_list();
    }
    if (item && list == nullptr) {
      list = &block;
      out += block.ordered ? "<ol>\n" : "<ul>\n";
    }
    out += BlockHtml(lines, block) + "\n";
  }
  close_list();
  return out;
}

std::string FormatMarkdown(std::span<const TextLine> lines) {
  return FormatMarkdown(lines, AnalyzeLayout(lines));
}

std::string FormatHtml(std::span<const TextLine> lines) {
  return FormatHtml(lines, AnalyzeLayout(lines));
}

std::vector<Block> PageBlocks(const DocumentPage& page) {
  return page.blocks.empty() && !page.lines.empty() ? AnalyzeLayout(page.lines) : page.blocks;
}

std::string FormatPage(OutputFormat format, const DocumentPage& page) {
  if (format == OutputFormat::kJson || format == OutputFormat::kPdf) {
    return {};
  }
  if (format == OutputFormat::kHocr || format == OutputFormat::kAlto) {
    DocumentResult one;
    one.page_count = 1;
    one.pages.push_back(page);
    return FormatDocument(one, format, false);
  }
  if (format == OutputFormat::kText) {
    return FormatText(page.lines);
  }
  if (format == OutputFormat::kCsv)
    return TablesCsv(std::span(&page, 1));
  const std::vector<Block> blocks = PageBlocks(page);
  return format == OutputFormat::kMarkdown ? FormatMarkdown(page.lines, blocks)
                                           : FormatHtml(page.lines, blocks);
}

std::string FormatDocument(const DocumentResult& document, OutputFormat format, bool paginate) {
  if (format == OutputFormat::kJson || format == OutputFormat::kPdf)
    return {};
  if (format == OutputFormat::kHtml)
    return HtmlDocument(document, paginate);
  if (format == OutputFormat::kHocr)
    return FormatHocr(document);
  if (format == OutputFormat::kAlto)
    return FormatAlto(document);
  if (format == OutputFormat::kCsv)
    return TablesCsv(document.pages);
  if (paginate)
    return PaginateLikeMarker(document, format);
  std::string out;
  for (const DocumentPage& page : document.pages) {
    std::string text = FormatPage(format, page);
    // Pages follow each other as blocks, separated by a blank line.
    if (!out.empty() && !text.empty())
      out += "\n";
    out += text;
  }
  return out;
}

}  // namespace ocr::document
