// The text, Markdown and HTML writers over layout.h's paragraphs.
#include "document/render.h"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"
#include "document/layout.h"

namespace ocr::document {
namespace {

using pipeline::TextLine;

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += separator;
    }
    out += parts[i];
  }
  return out;
}

// Backslash-escapes every ASCII punctuation character that can start or close Markdown markup
// (CommonMark lets any ASCII punctuation be escaped, so this never shows a stray backslash): the
// requested set, plus '~' (fenced code, strikethrough) and '&' (entity references such as
// "&copy;"). The only other block-level trigger a paragraph's first characters can hold is an
// ordered-list marker ("1." or "1)"), whose punctuation is escaped there.
std::string EscapeMarkdown(std::string_view text) {
  constexpr std::string_view kSpecial = "\\`*_{}[]<>#+-|!~&";
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  const bool list_marker =
      digits > 0 && digits < text.size() && (text[digits] == '.' || text[digits] == ')');
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

struct NamedFormat {
  std::string_view name;
  OutputFormat format;
};

constexpr std::array<NamedFormat, 4> kFormats = {{
    {"json", OutputFormat::kJson},
    {"text", OutputFormat::kText},
    {"markdown", OutputFormat::kMarkdown},
    {"html", OutputFormat::kHtml},
}};

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
    joined += "\n\n{" + std::to_string(page.page) + "}" + kPageRule + "\n\n" +
              FormatLines(format, page.lines);
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
    out += FormatHtml(page.lines);
    if (paginate)
      out += "</div>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (const NamedFormat& f : kFormats) {
    if (EqualsIgnoreCase(name, f.name)) {
      return f.format;
    }
  }
  return InvalidArgument("output_format must be one of json, markdown, html, text (got '" +
                         PrintableEcho(name) + "')");
}

std::string_view OutputFormatName(OutputFormat format) {
  for (const NamedFormat& f : kFormats) {
    if (f.format == format) {
      return f.name;
    }
  }
  return "json";  // unreachable: every enumerator is in kFormats
}

std::string FormatText(std::span<const TextLine> lines) {
  std::string out;
  for (const TextLine& line : lines) {
    out += NormalizeText(line.text);
    out += '\n';
  }
  return out;
}

std::string FormatMarkdown(std::span<const TextLine> lines) {
  std::string out;
  for (const Paragraph& paragraph : GroupParagraphs(lines)) {
    if (!out.empty()) {
      out += '\n';  // the blank line between blocks
    }
    if (paragraph.heading) {
      out += "## ";
    }
    out += EscapeMarkdown(Join(paragraph.lines, " "));
    out += '\n';
  }
  return out;
}

std::string FormatHtml(std::span<const TextLine> lines) {
  std::string out;
  for (const Paragraph& paragraph : GroupParagraphs(lines)) {
    if (paragraph.heading) {
      // A heading wrapped over two lines is still one title: its lines join with a space.
      out += "<h2>" + EscapeHtml(Join(paragraph.lines, " ")) + "</h2>\n";
      continue;
    }
    out += "<p>";
    for (std::size_t i = 0; i < paragraph.lines.size(); ++i) {
      if (i > 0) {
        out += "<br>";
      }
      out += EscapeHtml(paragraph.lines[i]);
    }
    out += "</p>\n";
  }
  return out;
}

std::string FormatLines(OutputFormat format, std::span<const TextLine> lines) {
  switch (format) {
    case OutputFormat::kText:
      return FormatText(lines);
    case OutputFormat::kMarkdown:
      return FormatMarkdown(lines);
    case OutputFormat::kHtml:
      return FormatHtml(lines);
    case OutputFormat::kJson:
      break;
  }
  return {};
}

std::string FormatDocument(const DocumentResult& document, OutputFormat format, bool paginate) {
  if (format == OutputFormat::kJson)
    return {};
  if (format == OutputFormat::kHtml)
    return HtmlDocument(document, paginate);
  if (paginate)
    return PaginateLikeMarker(document, format);
  std::string out;
  for (const DocumentPage& page : document.pages) {
    std::string text = FormatLines(format, page.lines);
    // Pages follow each other as blocks, separated by a blank line.
    if (!out.empty() && !text.empty())
      out += "\n";
    out += text;
  }
  return out;
}

}  // namespace ocr::document
