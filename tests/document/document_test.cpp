// Documents end to end with the real models: born-digital PDFs read from their text layer,
// scanned ones through OCR, force_ocr, page ranges, pagination, and bad documents.
#include "document/document.h"

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include "document/render.h"
#include "image/decode.h"
#include "image/test_images.h"
#include "pdf/test_documents.h"
#include "pdf/test_pdfs.h"
#include "support/default_pipeline.h"
#include "support/exact_lines.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::document {
namespace {

namespace pt = ocr::pdf::testing;
using layout::BlockType;
using pipeline::TextLine;
using pipeline::Word;
using pt::WithoutSpaces;

class DocumentTest : public pt::PdfToolsTest {
 protected:
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

TEST_F(DocumentTest, LayoutOffKeepsTheLinesAndLeavesBlocksEmpty) {
  const auto pdf = pt::MakeTextPdf("two", {"Layer page one", "Layer page two"}, "a4");
  ASSERT_FALSE(pdf.empty());
  const auto png = testing::RenderTextPng("Scanned line 42", 14);
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  for (const auto& path : {pdf, png}) {
    auto laid_out = Read(path);
    ASSERT_TRUE(laid_out.ok()) << laid_out.status().ToString();
    DocumentOptions lines_only;
    lines_only.layout = false;
    auto plain = Read(path, lines_only);
    ASSERT_TRUE(plain.ok()) << plain.status().ToString();
    ASSERT_EQ(plain->pages.size(), laid_out->pages.size());
    for (std::size_t i = 0; i < plain->pages.size(); ++i) {
      EXPECT_FALSE(laid_out->pages[i].blocks.empty()) << path;
      EXPECT_TRUE(plain->pages[i].blocks.empty()) << path;
      EXPECT_EQ(Texts(plain->pages[i]), Texts(laid_out->pages[i])) << path;
    }
  }
}

// A dense table's numbers, set closer than the detector's break between words, are cells of their
// own once the page is laid out; the lines alone (the JSON answer) stay the detector's.
TEST_F(DocumentTest, LaidOutNumbersOfADenseTableAreCellsOfTheirOwn) {
  // Labels of one width (digits are all as wide), numbers right-aligned with figure spaces
  // (U+2007, a digit wide), an en space (U+2002) between the columns: half an em, under the
  // detector's break between words.
  const std::string fs = "\u2007";
  const std::string en = "\u2002";
  const auto png = testing::RenderTextPng(
      "Area 11    19,820" + en + "154.0\n" + "Area 12    25,933" + en + "132.2\n" + "Area 13    " +
          fs + "1,462" + en + fs + "77.5\n" + "Area 14    " + fs + "5,469" + en + "141.6\n" +
          "Area 15    " + fs + "1,816" + en + "112.2",
      14);
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  DocumentOptions lines_only;
  lines_only.layout = false;
  auto plain = Read(png, lines_only);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_NE(Texts(plain->pages[0]).find("|19,820 154.0|"), std::string::npos)
      << "the detector no longer joins the numbers: " << Texts(plain->pages[0]);
  auto laid_out = Read(png);
  ASSERT_TRUE(laid_out.ok()) << laid_out.status().ToString();
  const DocumentPage& page = laid_out->pages[0];
  EXPECT_EQ(Texts(page),
            "Area 11|19,820|154.0|Area 12|25,933|132.2|Area 13|1,462|77.5|Area 14|5,469|141.6|"
            "Area 15|1,816|112.2|");
  ASSERT_EQ(page.blocks.size(), 1U);
  EXPECT_EQ(page.blocks[0].type, BlockType::kTable);
  EXPECT_EQ(page.blocks[0].table.row_count, 5);
  EXPECT_EQ(page.blocks[0].table.col_count, 3);
  for (const TextLine& line : page.lines)
    EXPECT_TRUE(line.words.empty()) << "words were not asked for";
}

// Every item on a thread of its own, all at once: a document's pages read side by side.
class ThreadPerItemRunner final : public TaskRunner {
 public:
  void ParallelFor(size_t n, const std::function<void(size_t)>& fn) override {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < n; ++i)
      threads.emplace_back([&fn, i] { fn(i); });
  }
};

TEST_F(DocumentTest, PdfPagesReadSideBySideReadAsTheyDoOneAtATime) {
  const pt::TestDocument scanned = pt::MakeScannedDocument("side-by-side-scan");
  const pt::TestDocument digital = pt::MakeBornDigitalDocument("side-by-side-text");
  ASSERT_FALSE(scanned.pdf.empty());
  ASSERT_FALSE(digital.pdf.empty());
  for (const auto& path : {scanned.pdf, digital.pdf}) {
    const auto bytes = pt::ReadBytes(path);
    DocumentOptions options;
    options.page_range = "0-4";
    auto alone = ReadDocument(bytes, testing::DefaultPipeline(), options);
    ASSERT_TRUE(alone.ok()) << alone.status().ToString();
    ThreadPerItemRunner side_by_side;
    auto together = ReadDocument(bytes, testing::DefaultPipeline(), options, {}, &side_by_side);
    ASSERT_TRUE(together.ok()) << together.status().ToString();
    ASSERT_EQ(together->pages.size(), alone->pages.size()) << path;
    for (std::size_t i = 0; i < alone->pages.size(); ++i) {
      EXPECT_FALSE(alone->pages[i].lines.empty()) << path << " page " << i;
      EXPECT_EQ(testing::ExactLines(together->pages[i]), testing::ExactLines(alone->pages[i]))
          << path;
    }
  }
}

TEST_F(DocumentTest, AScannedJpegPageReadsAsTheJpegItself) {
  const auto png = testing::RenderTextPng("Scanned invoice 2026-11 paid", 14);
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  std::vector<std::uint8_t> jpeg;
  ASSERT_TRUE(cv::imencode(".jpg", cv::imread(png.string()), jpeg, {cv::IMWRITE_JPEG_QUALITY, 80}));
  const auto jpeg_path = pt::TempPath("scan-page.jpg");
  std::ofstream(jpeg_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(jpeg.data()), static_cast<std::streamsize>(jpeg.size()));
  // img2pdf puts the JPEG's bytes in the PDF as they are, over the whole page, at 100 dpi.
  const auto pdf = pt::TempPath("scan-page.pdf");
  ASSERT_TRUE(
      pt::Run("img2pdf --imgsize 100dpi -o '" + pdf.string() + "' '" + jpeg_path.string() + "'"));
  auto from_pdf = Read(pdf);
  ASSERT_TRUE(from_pdf.ok()) << from_pdf.status().ToString();
  auto from_jpeg = ReadDocument(jpeg, testing::DefaultPipeline(), {});
  ASSERT_TRUE(from_jpeg.ok()) << from_jpeg.status().ToString();
  ASSERT_EQ(from_pdf->pages.size(), 1u);
  EXPECT_EQ(WithoutSpaces(Texts(from_pdf->pages[0])), "Scannedinvoice2026-11paid|");
  // Its pixels, not poppler's resampling of them: the same lines to the bit.
  EXPECT_EQ(testing::ExactLines(from_pdf->pages[0]), testing::ExactLines(from_jpeg->pages[0]));
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
            "\n\n{1}" + dashes + "\n\nBravo\n\n{3}" + dashes + "\n\nDelta");
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
  one_page.limits.max_pages = 1;
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

TEST_F(DocumentTest, TextLayerLinesCarryTheirWordsOnRequest) {
  const auto pdf = pt::MakeTextPdf("words", {"Total due 42 EUR"}, "a4");
  ASSERT_FALSE(pdf.empty());
  DocumentOptions options;
  options.ocr.read_words = true;
  auto doc = Read(pdf, options);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->pages.size(), 1u);
  ASSERT_TRUE(doc->pages[0].from_text_layer);
  ASSERT_EQ(doc->pages[0].lines.size(), 1u);
  const TextLine& line = doc->pages[0].lines[0];
  std::vector<std::string> words;
  for (const Word& w : line.words) {
    words.push_back(w.text);
    EXPECT_EQ(w.confidence, 1.0F);
    EXPECT_GE(w.box[0].x, line.box[0].x);
    EXPECT_LE(w.box[1].x, line.box[1].x);
  }
  EXPECT_EQ(words, (std::vector<std::string>{"Total", "due", "42", "EUR"}));
  // Without the option, text-layer lines carry no words, as OCR'd lines do not.
  auto plain = Read(pdf);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(plain->pages[0].lines[0].words.empty());
}

// A one-page PDF whose text layer maps its glyphs, through a ToUnicode CMap, to look-alike code
// points as Chromium's print-to-PDF does with CJK fonts: 'A' to U+2F26 (KANGXI RADICAL CHILD,
// for U+5B50), 'B' to U+2F64 (for U+7528), 'C' to U+FA0E (a unified ideograph of the
// compatibility block, no decomposition) and 'D' to U+FF21 (FULLWIDTH A, not folded).
std::vector<std::uint8_t> LookAlikeTextLayerPdf() {
  const std::string cmap =
      "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
      "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
      "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
      "1 begincodespacerange <00> <FF> endcodespacerange\n"
      "4 beginbfchar <41> <2F26> <42> <2F64> <43> <FA0E> <44> <FF21> endbfchar\n"
      "endcmap CMapName currentdict /CMap defineresource pop end end\n";
  const std::string text = "BT /F1 24 Tf 20 150 Td (ABAB) Tj 0 -40 Td (ACD) Tj ET\n";
  return pt::BuildPdf({
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 4 0 R >> "
      ">> /Contents 5 0 R >>",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding "
      "/ToUnicode 6 0 R >>",
      "<< /Length " + std::to_string(text.size()) + " >>\nstream\n" + text + "endstream",
      "<< /Length " + std::to_string(cmap.size()) + " >>\nstream\n" + cmap + "endstream",
  });
}

// Issue 17: a search for 子 must find a page whose layer spells it with the Kangxi radical.
TEST(TextLayerFoldingTest, LookAlikeHanCodePointsReadAsTheCharactersTheyStandFor) {
  auto doc = ReadDocument(LookAlikeTextLayerPdf(), testing::DefaultPipeline(), {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->pages.size(), 1u);
  ASSERT_TRUE(doc->pages[0].from_text_layer);
  std::vector<std::string> lines;
  for (const TextLine& line : doc->pages[0].lines)
    lines.push_back(line.text);
  EXPECT_EQ(lines, (std::vector<std::string>{"\u5B50\u7528\u5B50\u7528", "\u5B50\uFA0E\uFF21"}));
}

// Multi-frame TIFFs: each frame is a page, OCR'd like an image.
class TiffDocumentTest : public ::testing::Test {
 protected:
  static const std::vector<std::string>& Pages() {
    // Frame 1 is the largest, for the per-frame pixel limit.
    static const std::vector<std::string> pages = {"Frame zero apples", "Frame one holds bananas",
                                                   "Frame two cherries"};
    return pages;
  }

  void SetUp() override {
    tiff_ = image::testing::RenderTextTiff(Pages());
    if (tiff_.empty())
      GTEST_SKIP() << "pango-view not installed";
  }

  Result<DocumentResult> Read(const DocumentOptions& options) const {
    return ReadDocument(tiff_, testing::DefaultPipeline(), options);
  }

  // The page's text without spaces (PP-OCRv4 often drops those between English words).
  static std::string Text(const DocumentPage& page) {
    std::string text;
    for (const TextLine& line : page.lines)
      text += line.text;
    return WithoutSpaces(text);
  }

  static std::string Expected(std::size_t frame) { return WithoutSpaces(Pages()[frame]); }

  std::vector<std::uint8_t> tiff_;
};

TEST_F(TiffDocumentTest, EachFrameIsAPageInOrder) {
  auto doc = Read({});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->page_count, 3);
  ASSERT_EQ(doc->pages.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const DocumentPage& page = doc->pages[i];
    EXPECT_EQ(page.page, static_cast<int>(i));
    EXPECT_FALSE(page.from_text_layer);
    const Result<cv::Mat> frame = image::DecodeFrame(tiff_, static_cast<int>(i));
    ASSERT_TRUE(frame.ok());
    EXPECT_EQ(page.width, frame->cols);
    EXPECT_EQ(page.height, frame->rows);
    EXPECT_EQ(Text(page), Expected(i));
  }
  const std::string dashes(48, '-');
  EXPECT_EQ(WithoutSpaces(FormatDocument(*doc, OutputFormat::kText, true)),
            "\n\n{0}" + dashes + "\n\nFramezeroapples\n\n{1}" + dashes +
                "\n\nFrameoneholdsbananas\n\n{2}" + dashes + "\n\nFrametwocherries");
}

TEST_F(TiffDocumentTest, PageRangeSelectsFrames) {
  DocumentOptions options;
  options.page_range = "2,0";
  auto doc = Read(options);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->page_count, 3);
  ASSERT_EQ(doc->pages.size(), 2u);
  EXPECT_EQ(doc->pages[0].page, 0);
  EXPECT_EQ(Text(doc->pages[0]), Expected(0));
  EXPECT_EQ(doc->pages[1].page, 2);
  EXPECT_EQ(Text(doc->pages[1]), Expected(2));
  options.page_range = "3-5";
  EXPECT_EQ(Read(options).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(TiffDocumentTest, MaxPdfPagesCapsFramesAndThePixelLimitIsPerFrame) {
  DocumentOptions two;
  two.limits.max_pages = 2;
  const auto refused = Read(two);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kTooManyPages);
  EXPECT_NE(refused.status().message().find("more than 2 frames"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("--max-pdf-pages"), std::string::npos);

  // A limit that frame 0 fits and frame 1 does not: the whole document fails on frame 1, and a
  // range without it reads.
  const cv::Mat frame0 = *image::DecodeFrame(tiff_, 0);
  DocumentOptions small;
  small.limits.max_image_pixels = static_cast<std::int64_t>(frame0.total());
  EXPECT_EQ(Read(small).status().code(), StatusCode::kImageTooLarge);
  small.page_range = "0";
  auto first = Read(small);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Text(first->pages[0]), Expected(0));
}

TEST_F(TiffDocumentTest, SingleFrameTiffIsOnePage) {
  const auto one = image::testing::RenderTextTiff({"Lonely frame 7"});
  auto doc = ReadDocument(one, testing::DefaultPipeline(), {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->page_count, 1);
  ASSERT_EQ(doc->pages.size(), 1u);
  EXPECT_EQ(Text(doc->pages[0]), "Lonelyframe7");
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
}  // namespace ocr::document
