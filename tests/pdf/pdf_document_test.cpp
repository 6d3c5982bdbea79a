#include "pdf/pdf_document.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include "document/text_layer.h"
#include "pdf/test_pdfs.h"
#include "support/test_paths.h"

namespace ocr::pdf {
namespace {

using document::TextLayerPage;
using testing::HandWrittenPdf;
using testing::ReadBytes;

// enscript -B lays these out top to bottom in Courier 12; single spaces, so the text layer gives
// them back exactly.
const std::vector<std::string> kPage1 = {"Hello world line one", "Second line of text 42",
                                         "Third line, with punctuation: A4 paper."};
const std::vector<std::string> kPage2 = {"Page two text"};
const std::vector<std::string> kPage3 = {"Page three text"};

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines)
    out += (out.empty() ? "" : "\n") + l;
  return out;
}

// The page's words as document/ groups them: what the OCR path's callers see of a text layer.
Result<TextLayerPage> TextLayer(const PdfDocument& doc, int page) {
  return document::ReadTextLayer(doc, page);
}

std::vector<std::string> Texts(const TextLayerPage& page) {
  std::vector<std::string> out;
  for (const pipeline::TextLine& l : page.lines)
    out.push_back(l.text);
  return out;
}

cv::Rect2f BoundingRect(const pipeline::Quad& q) {
  float x0 = q[0].x, y0 = q[0].y, x1 = q[0].x, y1 = q[0].y;
  for (const pipeline::Point& p : q) {
    x0 = std::min(x0, p.x);
    y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x);
    y1 = std::max(y1, p.y);
  }
  return {x0, y0, x1 - x0, y1 - y0};
}

// Dark pixels of `bgr` (any channel under 128): how many in all, and how many inside the union
// of the line boxes grown by `pad` pixels.
struct DarkCount {
  int total = 0;
  int inside = 0;
};

DarkCount CountDark(const cv::Mat& bgr, const std::vector<pipeline::TextLine>& lines, int pad) {
  cv::Mat1b mask = cv::Mat1b::zeros(bgr.size());
  for (const pipeline::TextLine& l : lines) {
    const cv::Rect2f r = BoundingRect(l.box);
    const cv::Rect grown(cv::Point(static_cast<int>(r.x) - pad, static_cast<int>(r.y) - pad),
                         cv::Point(static_cast<int>(r.x + r.width) + pad + 1,
                                   static_cast<int>(r.y + r.height) + pad + 1));
    mask(grown & cv::Rect(cv::Point(), bgr.size())).setTo(255);
  }
  DarkCount count;
  for (int y = 0; y < bgr.rows; ++y) {
    for (int x = 0; x < bgr.cols; ++x) {
      const cv::Vec3b& p = bgr.at<cv::Vec3b>(y, x);
      if (std::min({p[0], p[1], p[2]}) >= 128)
        continue;
      ++count.total;
      if (mask(y, x) != 0)
        ++count.inside;
    }
  }
  return count;
}

// The line's words spell its text (split at spaces), confidence 1, their boxes inside the line's
// box and one after the other along the reading direction.
void ExpectWordsSpellTheLine(const pipeline::TextLine& line) {
  std::vector<std::string> texts;
  for (const pipeline::Word& w : line.words)
    texts.push_back(w.text);
  std::vector<std::string> expected;
  for (std::size_t start = 0; start <= line.text.size();) {
    const std::size_t space = std::min(line.text.find(' ', start), line.text.size());
    expected.push_back(line.text.substr(start, space - start));
    start = space + 1;
  }
  ASSERT_EQ(texts, expected);
  const cv::Rect2f outer = BoundingRect(line.box);
  const auto reading = [&line](const pipeline::Point& p) {
    // Distance along the reading direction, from the line's first corner towards its second.
    const float dx = line.box[1].x - line.box[0].x;
    const float dy = line.box[1].y - line.box[0].y;
    return ((p.x - line.box[0].x) * dx + (p.y - line.box[0].y) * dy) / std::hypot(dx, dy);
  };
  for (std::size_t i = 0; i < line.words.size(); ++i) {
    const pipeline::Word& w = line.words[i];
    EXPECT_EQ(w.confidence, 1.0F);
    const cv::Rect2f r = BoundingRect(w.box);
    EXPECT_GE(r.x, outer.x - 0.01F) << w.text;
    EXPECT_GE(r.y, outer.y - 0.01F) << w.text;
    EXPECT_LE(r.x + r.width, outer.x + outer.width + 0.01F) << w.text;
    EXPECT_LE(r.y + r.height, outer.y + outer.height + 0.01F) << w.text;
    if (i > 0) {
      EXPECT_GT(reading(w.box[0]), reading(line.words[i - 1].box[1]) - 1) << w.text;
    }
  }
}

void ExpectBoxesInside(const TextLayerPage& page, cv::Size size) {
  for (const pipeline::TextLine& l : page.lines) {
    for (const pipeline::Point& p : l.box) {
      EXPECT_GE(p.x, 0) << l.text;
      EXPECT_GE(p.y, 0) << l.text;
      EXPECT_LE(p.x, static_cast<float>(size.width)) << l.text;
      EXPECT_LE(p.y, static_cast<float>(size.height)) << l.text;
    }
    EXPECT_EQ(l.confidence, 1.0F);
  }
}

// Generated documents, made once for the whole suite.
class PdfDocumentTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string missing;
    if (!testing::HaveTools(&missing)) {
      skip_reason_ = new std::string("missing tools: " + missing +
                                     " (Debian packages enscript, ghostscript, qpdf, img2pdf)");
      return;
    }
    a4_ = new std::filesystem::path(
        testing::MakeTextPdf("a4", {Join(kPage1), Join(kPage2), Join(kPage3)}, "a4"));
    letter_ = new std::filesystem::path(testing::MakeTextPdf("letter", {Join(kPage2)}, "letter"));
  }

  static void TearDownTestSuite() {
    // Keep the generated files for inspection when something failed.
    if (!::testing::UnitTest::GetInstance()->current_test_suite()->Failed()) {
      testing::RemoveTempFolder();
    }
    delete skip_reason_;
    delete a4_;
    delete letter_;
    skip_reason_ = nullptr;
    a4_ = nullptr;
    letter_ = nullptr;
  }

  void SetUp() override {
    if (skip_reason_ != nullptr)
      GTEST_SKIP() << *skip_reason_;
    ASSERT_FALSE(a4_->empty());
    ASSERT_FALSE(letter_->empty());
  }

  static std::unique_ptr<PdfDocument> OpenOrDie(const std::vector<std::uint8_t>& bytes,
                                                const PdfLimits& limits = {}) {
    auto doc = PdfDocument::Open(bytes, limits);
    EXPECT_TRUE(doc.ok()) << doc.status().ToString();
    return doc.ok() ? std::move(doc).value() : nullptr;
  }

  static std::string* skip_reason_;
  static std::filesystem::path* a4_;      // 3 pages: kPage1, kPage2, kPage3
  static std::filesystem::path* letter_;  // 1 page: kPage2
};

std::string* PdfDocumentTest::skip_reason_ = nullptr;
std::filesystem::path* PdfDocumentTest::a4_ = nullptr;
std::filesystem::path* PdfDocumentTest::letter_ = nullptr;

TEST_F(PdfDocumentTest, OpensBornDigitalA4AndRendersEachPageAtDpi) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*a4_);
  const auto doc = OpenOrDie(bytes);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->page_count(), 3);
  for (int page = 0; page < 3; ++page) {
    const Result<cv::Size> size = doc->PageSize(page);
    ASSERT_OK(size);
    EXPECT_NEAR(size->width, 1654, 2);
    EXPECT_NEAR(size->height, 2339, 2);
    const Result<cv::Mat> image = doc->RenderPage(page);
    ASSERT_OK(image);
    EXPECT_EQ(image->type(), CV_8UC3);
    EXPECT_EQ(image->size(), *size) << "PageSize must predict the render exactly";
    EXPECT_GT(cv::countNonZero(image->reshape(1) < 128), 100) << "page " << page << " is blank";
    EXPECT_EQ(image->at<cv::Vec3b>(0, 0), cv::Vec3b(255, 255, 255)) << "paper is white";
  }
}

TEST_F(PdfDocumentTest, LetterPageSizeFollowsDpi) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*letter_);
  for (const auto& [dpi, width, height] :
       {std::tuple{200.0, 1700, 2200}, std::tuple{72.0, 612, 792}, std::tuple{300.0, 2550, 3300}}) {
    const auto doc = OpenOrDie(bytes, {.dpi = dpi});
    ASSERT_NE(doc, nullptr);
    const Result<cv::Mat> image = doc->RenderPage(0);
    ASSERT_OK(image);
    EXPECT_NEAR(image->cols, width, 2) << dpi << " dpi";
    EXPECT_NEAR(image->rows, height, 2) << dpi << " dpi";
  }
}

TEST_F(PdfDocumentTest, TextLayerGivesLinesInOrderAndPageOrderIsKept) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*a4_);
  const auto doc = OpenOrDie(bytes);
  ASSERT_NE(doc, nullptr);
  const std::vector<std::vector<std::string>> expected = {kPage1, kPage2, kPage3};
  for (int page = 0; page < 3; ++page) {
    const Result<TextLayerPage> text = TextLayer(*doc, page);
    ASSERT_OK(text);
    EXPECT_TRUE(text->usable);
    EXPECT_EQ(Texts(*text), expected[static_cast<std::size_t>(page)]) << "page " << page;
    ExpectBoxesInside(*text, *doc->PageSize(page));
    for (const pipeline::TextLine& line : text->lines)
      ExpectWordsSpellTheLine(line);
    for (std::size_t i = 1; i < text->lines.size(); ++i) {
      EXPECT_GT(text->lines[i].box[0].y, text->lines[i - 1].box[2].y - 1)
          << "line " << i << " starts below the previous one";
    }
  }
}

TEST_F(PdfDocumentTest, TextLayerBoxesCoverTheRenderedText) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*a4_);
  const auto doc = OpenOrDie(bytes);
  ASSERT_NE(doc, nullptr);
  const Result<TextLayerPage> text = TextLayer(*doc, 0);
  const Result<cv::Mat> image = doc->RenderPage(0);
  ASSERT_OK(text);
  ASSERT_OK(image);
  for (const pipeline::TextLine& l : text->lines) {
    // Upright text: the quad starts at the top left and runs clockwise.
    EXPECT_LT(l.box[0].x, l.box[1].x);
    EXPECT_LT(l.box[1].y, l.box[2].y);
    const cv::Rect2f r = BoundingRect(l.box);
    EXPECT_GT(r.width, r.height * 5) << l.text << " is a horizontal line";
    EXPECT_NEAR(r.height, 12 * 200.0 / 72, 12) << "Courier 12 at 200 dpi";
  }
  const DarkCount dark = CountDark(*image, text->lines, 2);
  ASSERT_GT(dark.total, 1000);
  EXPECT_GE(dark.inside, dark.total * 99 / 100) << "ink outside the text-layer boxes";
}

TEST_F(PdfDocumentTest, RotatedPageTurnsRenderAndTextLayerTogether) {
  for (const int degrees : {90, 180, 270}) {
    SCOPED_TRACE(std::to_string(degrees) + " degrees");
    const std::filesystem::path rotated =
        testing::MakeRotatedPdf("rotated" + std::to_string(degrees), *a4_, degrees, 1);
    ASSERT_FALSE(rotated.empty());
    const std::vector<std::uint8_t> bytes = ReadBytes(rotated);
    const auto doc = OpenOrDie(bytes);
    ASSERT_NE(doc, nullptr);
    const Result<cv::Mat> image = doc->RenderPage(0);
    const Result<TextLayerPage> text = TextLayer(*doc, 0);
    ASSERT_OK(image);
    ASSERT_OK(text);
    const bool sideways = degrees != 180;
    EXPECT_NEAR(image->cols, sideways ? 2339 : 1654, 2);
    EXPECT_NEAR(image->rows, sideways ? 1654 : 2339, 2);
    EXPECT_EQ(image->size(), *doc->PageSize(0));
    EXPECT_EQ(Texts(*text), kPage1);
    EXPECT_TRUE(text->usable);
    ExpectBoxesInside(*text, image->size());
    for (const pipeline::TextLine& line : text->lines)
      ExpectWordsSpellTheLine(line);
    const DarkCount dark = CountDark(*image, text->lines, 2);
    ASSERT_GT(dark.total, 1000);
    EXPECT_GE(dark.inside, dark.total * 99 / 100) << "text-layer boxes miss the rendered text";
    for (const pipeline::TextLine& l : text->lines) {
      // The quad starts where reading starts: on a page turned clockwise by 90 degrees the text
      // runs down with its top to the right, so the first corner is the top right.
      const pipeline::Point& first = l.box[0];
      const pipeline::Point& opposite = l.box[2];
      if (degrees == 90) {
        EXPECT_GT(first.x, opposite.x);
        EXPECT_LT(first.y, opposite.y);
      } else if (degrees == 180) {
        EXPECT_GT(first.x, opposite.x);
        EXPECT_GT(first.y, opposite.y);
      } else {
        EXPECT_LT(first.x, opposite.x);
        EXPECT_GT(first.y, opposite.y);
      }
    }
    // Pages not rotated stay as they were.
    EXPECT_NEAR(doc->PageSize(1)->width, 1654, 2);
  }
}

TEST_F(PdfDocumentTest, ScannedPageHasNoUsableTextLayer) {
  const std::filesystem::path scan = testing::MakeScannedPdf("scan", *a4_);
  ASSERT_FALSE(scan.empty());
  const std::vector<std::uint8_t> bytes = ReadBytes(scan);
  const auto doc = OpenOrDie(bytes);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->page_count(), 1);
  const Result<TextLayerPage> text = TextLayer(*doc, 0);
  ASSERT_OK(text);
  EXPECT_FALSE(text->usable);
  EXPECT_TRUE(text->lines.empty());
  const Result<cv::Mat> image = doc->RenderPage(0);
  ASSERT_OK(image);
  EXPECT_NEAR(image->cols, 1654, 2);
  EXPECT_NEAR(image->rows, 2339, 2);
  EXPECT_GT(cv::countNonZero(image->reshape(1) < 128), 1000) << "the scanned text is drawn";
}

TEST_F(PdfDocumentTest, EncryptedWithUserPasswordIsRejected) {
  const std::filesystem::path encrypted = testing::MakeEncryptedPdf("locked", *a4_, "user-pw");
  ASSERT_FALSE(encrypted.empty());
  const std::vector<std::uint8_t> bytes = ReadBytes(encrypted);
  const auto doc = PdfDocument::Open(bytes, {});
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kEncryptedPdf) << doc.status().ToString();
}

TEST_F(PdfDocumentTest, EncryptedWithOwnerPasswordOnlyOpens) {
  // Permissions-only encryption (empty user password) is common and needs no password to read.
  const std::filesystem::path encrypted = testing::MakeEncryptedPdf("owner_only", *a4_, "");
  ASSERT_FALSE(encrypted.empty());
  const std::vector<std::uint8_t> bytes = ReadBytes(encrypted);
  const auto doc = OpenOrDie(bytes);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->page_count(), 3);
  const Result<TextLayerPage> text = TextLayer(*doc, 0);
  ASSERT_OK(text);
  EXPECT_EQ(Texts(*text), kPage1);
}

TEST_F(PdfDocumentTest, TooManyPagesIsRejectedBeforeReadingPages) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*a4_);
  const auto doc = PdfDocument::Open(bytes, {.max_pages = 2});
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kTooManyPages);
  EXPECT_NE(doc.status().message().find('3'), std::string::npos) << doc.status().message();
  EXPECT_OK(PdfDocument::Open(bytes, {.max_pages = 3}));
}

TEST_F(PdfDocumentTest, PageOverPixelBudgetIsRejectedBeforeRendering) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*a4_);
  const auto doc = OpenOrDie(bytes, {.max_page_pixels = 1654 * 2339 / 2});
  ASSERT_NE(doc, nullptr);
  const Result<cv::Mat> image = doc->RenderPage(0);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), StatusCode::kImageTooLarge);
  // The size and the text layer need no render.
  EXPECT_OK(doc->PageSize(0));
  EXPECT_OK(TextLayer(*doc, 0));
}

TEST_F(PdfDocumentTest, TruncatedDocumentFailsCleanly) {
  const std::vector<std::uint8_t> full = ReadBytes(*a4_);
  for (const std::size_t keep :
       {std::size_t{16}, std::size_t{200}, full.size() / 3, full.size() / 2, full.size() - 40}) {
    SCOPED_TRACE("first " + std::to_string(keep) + " bytes");
    const std::vector<std::uint8_t> bytes(full.begin(),
                                          full.begin() + static_cast<std::ptrdiff_t>(keep));
    const auto doc = PdfDocument::Open(bytes, {});
    if (!doc.ok()) {
      EXPECT_EQ(doc.status().code(), StatusCode::kInvalidPdf) << doc.status().ToString();
      EXPECT_NE(doc.status().message().find("damaged"), std::string::npos)
          << doc.status().ToString();
      continue;
    }
    // poppler repairs what it can: whatever survived renders or fails with a clear error.
    for (int page = 0; page < (*doc)->page_count(); ++page) {
      const Result<cv::Mat> image = (*doc)->RenderPage(page);
      if (!image.ok()) {
        EXPECT_EQ(image.status().code(), StatusCode::kInvalidPdf);
      }
      const Result<TextLayerPage> text = TextLayer(**doc, page);
      if (!text.ok()) {
        EXPECT_EQ(text.status().code(), StatusCode::kInvalidPdf);
      }
    }
  }
  // Too short to hold anything poppler can repair.
  const std::vector<std::uint8_t> head(full.begin(), full.begin() + 16);
  EXPECT_EQ(PdfDocument::Open(head, {}).status().code(), StatusCode::kInvalidPdf);
}

TEST_F(PdfDocumentTest, PageOutOfRangeIsAnInvalidArgument) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*letter_);
  const auto doc = OpenOrDie(bytes);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->RenderPage(1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TextLayer(*doc, -1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(doc->PageSize(7).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(PdfDocumentTest, DocumentsOpenedFromTheSameBytesRenderInParallel) {
  const std::vector<std::uint8_t> bytes = ReadBytes(*a4_);
  std::vector<Result<TextLayerPage>> results(3, Status(StatusCode::kInternal, "not run"));
  {
    std::vector<std::jthread> threads;
    for (int page = 0; page < 3; ++page) {
      threads.emplace_back([&bytes, &results, page] {
        auto doc = PdfDocument::Open(bytes, {.dpi = 100});
        if (!doc.ok()) {
          results[static_cast<std::size_t>(page)] = doc.status();
          return;
        }
        const Result<cv::Mat> image = (*doc)->RenderPage(page);
        if (!image.ok()) {
          results[static_cast<std::size_t>(page)] = image.status();
          return;
        }
        results[static_cast<std::size_t>(page)] = TextLayer(**doc, page);
      });
    }
  }
  EXPECT_EQ(Texts(*results[0]), kPage1);
  EXPECT_EQ(Texts(*results[1]), kPage2);
  EXPECT_EQ(Texts(*results[2]), kPage3);
}

// ---- Hand-written PDFs: no tools needed.

TEST(PdfDocumentHandWrittenTest, RendersBgrChannelOrder) {
  // Left half red, right half blue.
  const std::vector<std::uint8_t> bytes =
      HandWrittenPdf(200, 100, "1 0 0 rg 0 0 100 100 re f 0 0 1 rg 100 0 100 100 re f");
  const auto doc = PdfDocument::Open(bytes, {.dpi = 72});
  ASSERT_OK(doc);
  const Result<cv::Mat> image = (*doc)->RenderPage(0);
  ASSERT_OK(image);
  ASSERT_EQ(image->size(), cv::Size(200, 100));
  EXPECT_EQ(image->at<cv::Vec3b>(50, 50), cv::Vec3b(0, 0, 255));
  EXPECT_EQ(image->at<cv::Vec3b>(50, 150), cv::Vec3b(255, 0, 0));
}

TEST(PdfDocumentHandWrittenTest, TextWithStandardFontHasBoxesInPixels) {
  // Helvetica 20 pt at (72, 100) from the bottom of a 300 x 200 pt page.
  const std::vector<std::uint8_t> bytes = HandWrittenPdf(
      300, 200, "BT /F1 20 Tf 72 100 Td (Hello PDF) Tj ET",
      "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>");
  const auto doc = PdfDocument::Open(bytes, {.dpi = 144});
  ASSERT_OK(doc);
  const Result<TextLayerPage> text = TextLayer(**doc, 0);
  ASSERT_OK(text);
  ASSERT_EQ(text->lines.size(), 1U);
  EXPECT_EQ(text->lines[0].text, "Hello PDF");
  EXPECT_TRUE(text->usable);
  const cv::Rect2f r = BoundingRect(text->lines[0].box);
  EXPECT_NEAR(r.x, 144, 4);                          // 72 pt at 2 px/pt
  EXPECT_NEAR(r.y + r.height, (200 - 100) * 2, 12);  // baseline 100 pt from the bottom
  EXPECT_LT(r.y, (200 - 100) * 2 - 20);
}

TEST(PdfDocumentHandWrittenTest, HugePageIsRejectedBeforeRendering) {
  // 200 x 200 inches: 40000 x 40000 pixels at 200 dpi.
  const std::vector<std::uint8_t> bytes = HandWrittenPdf(14400, 14400, "0 0 0 rg 0 0 10 10 re f");
  const auto doc = PdfDocument::Open(bytes, {});
  ASSERT_OK(doc);
  const auto start = std::chrono::steady_clock::now();
  const Result<cv::Mat> image = (*doc)->RenderPage(0);
  EXPECT_EQ(image.status().code(), StatusCode::kImageTooLarge) << image.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  const Result<cv::Size> size = (*doc)->PageSize(0);
  ASSERT_OK(size);
  EXPECT_EQ(*size, cv::Size(40000, 40000));
}

TEST(PdfDocumentHandWrittenTest, DeeplyNestedContentFailsInBoundedTime) {
  // A content stream of 100000 nested arrays: poppler's parser has a recursion limit.
  const std::string bomb = std::string(100000, '[') + std::string(100000, ']');
  const std::vector<std::uint8_t> bytes = HandWrittenPdf(100, 100, bomb);
  const auto start = std::chrono::steady_clock::now();
  const auto doc = PdfDocument::Open(bytes, {});
  ASSERT_OK(doc);
  const Result<cv::Mat> image = (*doc)->RenderPage(0);
  if (!image.ok()) {
    EXPECT_EQ(image.status().code(), StatusCode::kInvalidPdf);
  }
  const Result<TextLayerPage> text = TextLayer(**doc, 0);
  if (text.ok()) {
    EXPECT_FALSE(text->usable);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(PdfDocumentHandWrittenTest, BogusPageCountFailsCleanly) {
  // The page tree claims a million pages but has one.
  const std::vector<std::uint8_t> bytes = testing::BuildPdf({
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1000000 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>",
  });
  const auto doc = PdfDocument::Open(bytes, {});
  if (!doc.ok()) {
    EXPECT_TRUE(doc.status().code() == StatusCode::kInvalidPdf ||
                doc.status().code() == StatusCode::kTooManyPages)
        << doc.status().ToString();
    return;
  }
  EXPECT_LE((*doc)->page_count(), 200);
  for (int page = 0; page < (*doc)->page_count(); ++page) {
    const Result<cv::Mat> image = (*doc)->RenderPage(page);
    if (!image.ok()) {
      EXPECT_EQ(image.status().code(), StatusCode::kInvalidPdf);
    }
  }
}

TEST(PdfDocumentHandWrittenTest, NotAPdfIsInvalid) {
  std::mt19937 rng(20240605);  // fixed seed
  std::vector<std::uint8_t> noise(4096);
  for (std::uint8_t& b : noise)
    b = static_cast<std::uint8_t>(rng());
  for (const std::vector<std::uint8_t>& bytes :
       {noise, std::vector<std::uint8_t>{}, std::vector<std::uint8_t>{'G', 'I', 'F', '8', '9'}}) {
    const auto doc = PdfDocument::Open(bytes, {});
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(doc.status().code(), StatusCode::kInvalidPdf) << doc.status().ToString();
  }
  // A PDF header followed by noise reaches poppler, which finds nothing to read.
  std::vector<std::uint8_t> header_then_noise = {'%', 'P', 'D', 'F', '-', '1', '.', '7', '\n'};
  header_then_noise.insert(header_then_noise.end(), noise.begin(), noise.end());
  EXPECT_EQ(PdfDocument::Open(header_then_noise, {}).status().code(), StatusCode::kInvalidPdf);
}

TEST(PdfDocumentHandWrittenTest, LimitsOutOfRangeAreInvalidArguments) {
  const std::vector<std::uint8_t> bytes = HandWrittenPdf(100, 100, "");
  EXPECT_EQ(PdfDocument::Open(bytes, {.max_pages = 0}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(PdfDocument::Open(bytes, {.dpi = 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PdfDocument::Open(bytes, {.max_page_pixels = 0}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(PdfDocumentHandWrittenTest, EmptyPageHasNoUsableText) {
  const std::vector<std::uint8_t> bytes = HandWrittenPdf(100, 100, "");
  const auto doc = PdfDocument::Open(bytes, {});
  ASSERT_OK(doc);
  const Result<TextLayerPage> text = TextLayer(**doc, 0);
  ASSERT_OK(text);
  EXPECT_FALSE(text->usable);
  EXPECT_TRUE(text->lines.empty());
}

}  // namespace
}  // namespace ocr::pdf
