#include "pdf/test_documents.h"

#include <cstddef>

#include <gtest/gtest.h>

#include "pdf/test_pdfs.h"
#include "support/render_text.h"

namespace ocr::pdf::testing {
namespace {

const std::vector<TestPage> kScannedPages = {
    {{"Chapter One"}, {"Alice opens the shop", "Sales reach 120 units"}},
    {{"Chapter Two"}, {"Bruno counts 45 boxes", "Prices fall in March"}},
    {{"Chapter Three"}, {"Clara paints the gate", "Rain stops at noon"}},
    {{"Chapter Four"}, {"Daniel buys 7 lamps", "The train leaves late"}},
    {{"Chapter Five"}, {"Emma writes a letter", "Stamps cost 3 euros"}},
    {{"Chapter Six"}, {"Felix repairs the roof", "Wind blows from north"}},
    {{"Chapter Seven"}, {"Grace bakes 30 cakes", "Guests arrive on Friday"}},
    {{"Chapter Eight"}, {"Hugo plants 16 trees", "Summer brings warm days"}},
    {{"Chapter Nine"}, {"Irene sings in Vienna", "Tickets sold out fast"}},
    {{"Chapter Ten"}, {"Jonas closes the book", "The story ends here"}},
};

const std::vector<TestPage> kBornDigitalPages = {
    {{"Annual Report 2025"}, {"Revenue grew by 12 percent", "Costs stayed flat"}},
    {{"Fish & Chips <fresh> daily"}, {"Orders ship within 2 days", "Returns are free"}},
    {{"Contact the office"}, {"Phone 555 0100", "Open Monday to Friday"}},
};

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i > 0 ? std::string(separator) : std::string()) + parts[i];
  return out;
}

// The page as written: paragraphs separated by a blank line.
std::string PageText(const TestPage& page) {
  std::vector<std::string> paragraphs;
  for (const std::vector<std::string>& paragraph : page)
    paragraphs.push_back(Join(paragraph, "\n"));
  return Join(paragraphs, "\n\n");
}

// The test texts' only special characters are '&', '<' and '>': HTML writes them as entities,
// Markdown escapes them with a backslash.
std::string Escaped(std::string_view text, std::string_view format) {
  std::string out;
  for (const char c : text) {
    const bool special = c == '&' || c == '<' || c == '>';
    if (special && format == "html") {
      out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : "&gt;";
    } else {
      out += (special && format == "markdown" ? "\\" : "") + std::string(1, c);
    }
  }
  return out;
}

std::string PageOutput(const TestPage& page, std::string_view format) {
  std::string out;
  for (const std::vector<std::string>& paragraph : page) {
    if (format == "text") {
      out += Join(paragraph, "\n") + "\n";
    } else if (format == "markdown") {
      out += (out.empty() ? "" : "\n") + Escaped(Join(paragraph, " "), format) + "\n";
    } else {
      std::vector<std::string> lines;
      for (const std::string& line : paragraph)
        lines.push_back(Escaped(line, format));
      out += "<p>" + Join(lines, "<br>") + "</p>\n";
    }
  }
  return out;
}

std::vector<std::string> PageLines(const TestPage& page) {
  std::vector<std::string> lines;
  for (const std::vector<std::string>& paragraph : page)
    lines.insert(lines.end(), paragraph.begin(), paragraph.end());
  return lines;
}

// Texts of a JSON results array, without spaces when `ocr`.
std::vector<std::string> ResultTexts(const nlohmann::json& results, bool ocr) {
  std::vector<std::string> texts;
  for (const nlohmann::json& line : results) {
    const std::string text = line["text"].get<std::string>();
    texts.push_back(ocr ? WithoutSpaces(text) : text);
  }
  return texts;
}

std::vector<std::string> Comparable(std::vector<std::string> lines, bool ocr) {
  if (ocr) {
    for (std::string& line : lines)
      line = WithoutSpaces(line);
  }
  return lines;
}

}  // namespace

TestDocument MakeScannedDocument(const std::string& name) {
  TestDocument doc{{}, kScannedPages};
  std::string images;
  for (const TestPage& page : doc.pages) {
    const std::filesystem::path png = ocr::testing::RenderTextPng(PageText(page), 14);
    if (png.empty()) {
      ADD_FAILURE() << "pango-view failed (Debian package pango1.0-tools)";
      return doc;
    }
    images += " '" + png.string() + "'";
  }
  const std::filesystem::path pdf = TempPath(name + ".pdf");
  if (Run("img2pdf -o '" + pdf.string() + "'" + images))
    doc.pdf = pdf;
  return doc;
}

TestDocument MakeBornDigitalDocument(const std::string& name) {
  TestDocument doc{{}, kBornDigitalPages};
  std::vector<std::string> texts;
  for (const TestPage& page : doc.pages)
    texts.push_back(PageText(page));
  doc.pdf = MakeTextPdf(name, texts, "a4");
  return doc;
}

std::string ExpectedOutput(const TestDocument& doc, std::string_view format,
                           const std::vector<int>& pages, bool paginate) {
  std::string out;
  if (format == "html") {
    // A whole document; paginated, each page in marker's <div class='page'>.
    out = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body>\n";
    for (const int p : pages) {
      const std::string id = std::to_string(p);
      out += (paginate ? "<div class='page' data-page-id='" + id + "'>\n" : "") +
             PageOutput(doc.pages.at(static_cast<std::size_t>(p)), format) +
             (paginate ? "</div>\n" : "");
    }
    return out + "</body>\n</html>\n";
  }
  for (const int p : pages) {
    std::string page = PageOutput(doc.pages.at(static_cast<std::size_t>(p)), format);
    if (paginate) {
      // marker's: "\n\n{N}" + 48 dashes + "\n\n" before each page, nothing after the last.
      while (page.ends_with('\n'))
        page.pop_back();
      out += "\n\n{" + std::to_string(p) + "}" + std::string(48, '-') + "\n\n";
    } else if (!out.empty()) {
      out += "\n";
    }
    out += page;
  }
  return out;
}

std::vector<FormatRun> EveryFormat(bool paginate) {
  return {{"json", false}, {"markdown", paginate}, {"html", !paginate}, {"text", paginate}};
}

std::string WithoutSpaces(std::string text) {
  std::erase(text, ' ');
  return text;
}

void ExpectDocumentAnswer(const nlohmann::json& answer, const TestDocument& doc,
                          std::string_view format, const std::vector<int>& pages, bool paginate,
                          std::string_view source) {
  const bool ocr = source == "ocr";
  EXPECT_EQ(answer["success"], true);
  EXPECT_EQ(answer["format"], format);
  EXPECT_EQ(answer["page_count"], doc.pages.size());
  ASSERT_EQ(answer["pages"].size(), pages.size());
  std::vector<std::string> all_lines;
  for (std::size_t i = 0; i < pages.size(); ++i) {
    SCOPED_TRACE("page " + std::to_string(pages[i]));
    const nlohmann::json& page = answer["pages"][i];
    EXPECT_EQ(page["page"], pages[i]);
    EXPECT_EQ(page["source"], source);
    EXPECT_GT(page["width"].get<int>(), 0);
    EXPECT_GT(page["height"].get<int>(), 0);
    const std::vector<std::string> lines =
        PageLines(doc.pages.at(static_cast<std::size_t>(pages[i])));
    EXPECT_EQ(ResultTexts(page["results"], ocr), Comparable(lines, ocr));
    all_lines.insert(all_lines.end(), lines.begin(), lines.end());
  }
  EXPECT_EQ(ResultTexts(answer["results"], ocr), Comparable(all_lines, ocr));
  if (format == "json") {
    EXPECT_FALSE(answer.contains("output"));
    return;
  }
  ExpectOutput(answer["output"].get<std::string>(), doc, format, pages, paginate, source);
}

void ExpectOutput(const std::string& output, const TestDocument& doc, std::string_view format,
                  const std::vector<int>& pages, bool paginate, std::string_view source) {
  const std::string expected = ExpectedOutput(doc, format, pages, paginate);
  if (source == "ocr") {
    EXPECT_EQ(WithoutSpaces(output), WithoutSpaces(expected));
  } else {
    EXPECT_EQ(output, expected);
  }
}

}  // namespace ocr::pdf::testing
