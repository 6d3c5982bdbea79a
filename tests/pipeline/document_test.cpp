// Documents end to end with the real models: born-digital PDFs read from their text layer,
// scanned ones through OCR, force_ocr, page ranges, pagination, and bad documents.
#include "pipeline/document.h"

#include <gtest/gtest.h>

#include "pdf/test_pdfs.h"
#include "support/default_pipeline.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::pipeline {
namespace {

namespace pt = ocr::pdf::testing;

class DocumentTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { pt::RemoveTempFolder(); }

  void SetUp() override {
    std::string missing;
    if (!pt::HaveTools(&missing))
      GTEST_SKIP() << "PDF tools missing: " << missing;
  }

  static Result<DocumentResult> Read(const std::filesystem::path& path,
                                     const DocumentOptions& options = {}) {
    const auto bytes = pt::ReadBytes(path);
    return ReadDocument(bytes, testing::DefaultPipeline(), options);
  }

  static std::string Texts(const DocumentPage& page) {
    std::string s;
    for (const auto& l : page.lines)
      s += l.text + "|";
    return s;
  }
};

TEST_F(DocumentTest, BornDigitalPagesComeFromTheTextLayerInOrder) {
  const auto pdf =
      pt::MakeTextPdf("three", {"First page title", "Second page body", "Third page end"}, "a4");
  ASSERT_FALSE(pdf.empty());
  auto doc = Read(pdf);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->page_count, 3);
  ASSERT_EQ(doc->pages.size(), 3u);
  const char* want[] = {"First page title|", "Second page body|", "Third page end|"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(doc->pages[i].page, i);
    EXPECT_TRUE(doc->pages[i].from_text_layer);
    EXPECT_EQ(Texts(doc->pages[i]), want[i]);
    EXPECT_NEAR(doc->pages[i].width, 1654, 2);  // A4 at 200 dpi
  }
}

TEST_F(DocumentTest, ForceOcrReadsTheRenderedPageInstead) {
  const auto pdf = pt::MakeTextPdf("force", {"INVOICE 4471 PAID"}, "a4");
  ASSERT_FALSE(pdf.empty());
  DocumentOptions options;
  options.force_ocr = true;
  auto doc = Read(pdf, options);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->pages.size(), 1u);
  EXPECT_FALSE(doc->pages[0].from_text_layer);
  ASSERT_EQ(doc->pages[0].lines.size(), 1u) << Texts(doc->pages[0]);
  std::string text = doc->pages[0].lines[0].text;
  std::erase(text, ' ');
  EXPECT_EQ(text, "INVOICE4471PAID");
}

TEST_F(DocumentTest, ScannedPagesAreOcrd) {
  // Pango renders at 96 dpi and img2pdf keeps that size; pages render at 200 dpi, twice as large.
  const auto png = testing::RenderTextPng("Scanned receipt 2026", 14);
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  // An image-only page, as a scanner makes it.
  const auto pdf = pt::TempPath("scan.pdf");
  ASSERT_TRUE(pt::Run("img2pdf -o '" + pdf.string() + "' '" + png.string() + "'"));
  auto doc = Read(pdf);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->pages.size(), 1u);
  EXPECT_FALSE(doc->pages[0].from_text_layer);
  ASSERT_FALSE(doc->pages[0].lines.empty());
  std::string text = Texts(doc->pages[0]);
  std::erase(text, ' ');
  EXPECT_EQ(text, "Scannedreceipt2026|") << Texts(doc->pages[0]);
}

TEST_F(DocumentTest, PageRangeAndPagination) {
  const auto pdf = pt::MakeTextPdf("range", {"Alpha", "Bravo", "Charlie", "Delta"}, "letter");
  ASSERT_FALSE(pdf.empty());
  DocumentOptions options;
  options.page_range = "1,3-9";
  auto doc = Read(pdf, options);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->page_count, 4);
  ASSERT_EQ(doc->pages.size(), 2u);
  EXPECT_EQ(doc->pages[0].page, 1);
  EXPECT_EQ(doc->pages[1].page, 3);
  const std::string dashes(48, '-');
  EXPECT_EQ(FormatDocument(*doc, OutputFormat::kText, true),
            "\n{1}" + dashes + "\n\nBravo\n\n{3}" + dashes + "\n\nDelta\n");
  EXPECT_EQ(FormatDocument(*doc, OutputFormat::kText, false), "Bravo\n\nDelta\n");
  options.page_range = "7";
  auto none = Read(pdf, options);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(DocumentTest, BadDocumentsAreRefusedWithTheirCodes) {
  const auto pdf = pt::MakeTextPdf("bad", {"Secret"}, "a4");
  ASSERT_FALSE(pdf.empty());
  const auto locked = pt::MakeEncryptedPdf("locked", pdf, "pw");
  ASSERT_FALSE(locked.empty());
  EXPECT_EQ(Read(locked).status().code(), StatusCode::kEncryptedPdf);
  DocumentOptions one_page;
  one_page.max_pdf_pages = 1;
  const auto two = pt::MakeTextPdf("two", {"a", "b"}, "a4");
  EXPECT_EQ(Read(two, one_page).status().code(), StatusCode::kTooManyPages);
  auto bytes = pt::ReadBytes(pdf);
  bytes.resize(bytes.size() / 3);
  const auto truncated = ReadDocument(bytes, testing::DefaultPipeline(), {});
  if (!truncated.ok()) {
    EXPECT_EQ(truncated.status().code(), StatusCode::kInvalidPdf);
  }
  const std::vector<std::uint8_t> junk = {'%', 'P', 'D', 'F', '-', '1', '.', '4', 'x', 'y'};
  EXPECT_EQ(ReadDocument(junk, testing::DefaultPipeline(), {}).status().code(),
            StatusCode::kInvalidPdf);
  const std::vector<std::uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_EQ(ReadDocument(text, testing::DefaultPipeline(), {}).status().code(),
            StatusCode::kUnsupportedMediaType);
}

TEST(ParsePageRangeTest, ParsesListsAndRanges) {
  EXPECT_EQ(*ParsePageRange("0-3,7", 10), (std::vector<int>{0, 1, 2, 3, 7}));
  EXPECT_EQ(*ParsePageRange(" 2 , 2-3 ", 10), (std::vector<int>{2, 3}));
  EXPECT_EQ(*ParsePageRange("5-100", 7), (std::vector<int>{5, 6}));
  for (const char* bad : {"", "a", "3-1", "-1", "1-", "1,,2", "1.5"}) {
    EXPECT_FALSE(ParsePageRange(bad, 10).ok()) << bad;
  }
  EXPECT_FALSE(ParsePageRange("10-12", 10).ok());  // selects nothing
}

}  // namespace
}  // namespace ocr::pipeline
