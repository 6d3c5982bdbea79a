// The searchable PDF end to end with the real models and Debian's PDF tools: a scanned PDF keeps
// its pages (qpdf --check clean, same page count, pages rendered pixel for pixel the same by
// pdftoppm) and gives back the text read (pdftotext), its words where they were read (pdftotext
// -bbox, rotated pages too); an image becomes a page at its resolution, a JPEG's bytes as they
// came and a PNG's pixels exactly (pdfimages); a page read from its own text layer gets no
// second one.
#include "document/searchable_pdf.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "document/internal/line_words.h"
#include "pdf/pdf_document.h"
#include "pdf/test_documents.h"
#include "pdf/test_pdfs.h"
#include "support/default_pipeline.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::document {
namespace {

namespace pt = ocr::pdf::testing;

std::filesystem::path WriteFile(const std::string& name, std::string_view bytes) {
  const std::filesystem::path path = pt::TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// The standard output of `command`.
std::string Output(const std::string& command) {
  const std::filesystem::path out = pt::TempPath("cmd_out.txt");
  if (!pt::Run(command + " > '" + out.string() + "'"))
    return "<" + command + " failed>";
  std::ifstream in(out, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Words separated by single spaces.
std::string Words(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  std::string out;
  while (in >> word)
    out += (out.empty() ? "" : " ") + word;
  return out;
}

std::string PageText(const DocumentPage& page) {
  std::string text;
  for (const pipeline::TextLine& line : page.lines)
    text += line.text + "\n";
  return Words(text);
}

class SearchablePdfTest : public pt::PdfToolsTest {
 protected:
  void SetUp() override {
    pt::PdfToolsTest::SetUp();
    if (IsSkipped())
      return;
    for (const char* tool : {"pdftotext", "pdftoppm", "pdfimages", "pdfinfo", "qpdf"}) {
      if (std::system(("command -v " + std::string(tool) + " >/dev/null").c_str()) != 0)
        GTEST_SKIP() << tool << " not installed (poppler-utils, qpdf: scripts/bootstrap)";
    }
  }

  // Reads `bytes` and writes its searchable PDF; the result read, through `doc`.
  static std::string Searchable(const std::vector<std::uint8_t>& bytes,
                                const DocumentOptions& options, DocumentResult* doc,
                                bool pdfa = false) {
    auto read = ReadDocument(bytes, testing::DefaultPipeline(), options);
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    if (!read.ok())
      return {};
    auto pdf = WriteSearchablePdf(bytes, *read, options, pdfa);
    EXPECT_TRUE(pdf.ok()) << pdf.status().ToString();
    *doc = std::move(read).value();
    return pdf.ok() ? std::move(pdf).value() : std::string();
  }

  static DocumentOptions WithWords(std::string page_range = "") {
    DocumentOptions options;
    options.ocr.read_words = true;
    options.page_range = std::move(page_range);
    return options;
  }
};

TEST_F(SearchablePdfTest, AScannedPdfKeepsItsPagesAndGivesBackItsText) {
  const pt::TestDocument scan = pt::MakeScannedDocument("spdf_scan");
  ASSERT_FALSE(scan.pdf.empty());
  const std::vector<std::uint8_t> bytes = pt::ReadBytes(scan.pdf);
  DocumentResult doc;
  const std::string pdf = Searchable(bytes, WithWords("0-1"), &doc);  // page 3 on: not read
  ASSERT_FALSE(pdf.empty());
  const std::filesystem::path out = WriteFile("spdf_scan_out.pdf", pdf);
  EXPECT_TRUE(pt::Run("qpdf --check '" + out.string() + "'"));
  EXPECT_EQ(Output("qpdf --show-npages '" + out.string() + "'"),
            Output("qpdf --show-npages '" + scan.pdf.string() + "'"));
  // The layer is invisible: every page renders as before, pixel for pixel.
  for (int page : {1, 2, 3}) {
    const std::string p = std::to_string(page);
    const auto before = pt::TempPath("before_" + p);
    const auto after = pt::TempPath("after_" + p);
    ASSERT_TRUE(pt::Run("pdftoppm -r 40 -gray -singlefile -f " + p + " -l " + p + " -png '" +
                        scan.pdf.string() + "' '" + before.string() + "'"));
    ASSERT_TRUE(pt::Run("pdftoppm -r 40 -gray -singlefile -f " + p + " -l " + p + " -png '" +
                        out.string() + "' '" + after.string() + "'"));
    const cv::Mat a = cv::imread(before.string() + ".png", cv::IMREAD_GRAYSCALE);
    const cv::Mat b = cv::imread(after.string() + ".png", cv::IMREAD_GRAYSCALE);
    ASSERT_FALSE(a.empty());
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0) << "page " << page;
  }
  // The text read comes back in reading order, with spaces between words.
  for (std::size_t i = 0; i < doc.pages.size(); ++i) {
    const std::string p = std::to_string(i + 1);
    EXPECT_EQ(Words(Output("pdftotext -f " + p + " -l " + p + " '" + out.string() + "' -")),
              PageText(doc.pages[i]))
        << "page " << p;
  }
  EXPECT_EQ(Words(Output("pdftotext -f 3 -l 3 '" + out.string() + "' -")), "");
}

// pdftotext -bbox's words of page `page` (from 1): text -> box in points.
std::vector<std::pair<std::string, cv::Rect2d>> BboxWords(const std::filesystem::path& pdf,
                                                          int page = 1) {
  const std::string p = std::to_string(page);
  const std::string html =
      Output("pdftotext -bbox -f " + p + " -l " + p + " '" + pdf.string() + "' -");
  const std::regex word(
      R"re(<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>)re");
  std::vector<std::pair<std::string, cv::Rect2d>> words;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), word); it != std::sregex_iterator();
       ++it) {
    const double x0 = std::stod((*it)[1]);
    const double y0 = std::stod((*it)[2]);
    words.emplace_back((*it)[5],
                       cv::Rect2d(x0, y0, std::stod((*it)[3]) - x0, std::stod((*it)[4]) - y0));
  }
  return words;
}

// For each word we read on `page`, the best IoU of its box (pixels times `scale`: points) with a
// box pdftotext found for the same text.
std::vector<double> WordIous(const DocumentPage& page,
                             const std::vector<std::pair<std::string, cv::Rect2d>>& found,
                             double scale) {
  std::vector<double> ious;
  for (const pipeline::TextLine& line : page.lines) {
    for (const internal::PlacedWord& w : internal::LineWords(line)) {
      const internal::PixelBox b = internal::BoundsOf(w.box, page);
      const cv::Rect2d ours(b.x0 * scale, b.y0 * scale, (b.x1 - b.x0) * scale,
                            (b.y1 - b.y0) * scale);
      double best = 0;
      for (const auto& [word, box] : found) {
        if (word == w.text)
          best = std::max(best, (ours & box).area() / (ours | box).area());
      }
      ious.push_back(best);
    }
  }
  return ious;
}

TEST_F(SearchablePdfTest, WordsLandWhereTheyWereReadOnUprightAndRotatedPages) {
  const auto text =
      pt::MakeTextPdf("spdf_words", {"Invoice 1001 paid in full\nTotal 42 boxes"}, "a4");
  ASSERT_FALSE(text.empty());
  const auto scanned = pt::MakeScannedPdf("spdf_words_scan", text);
  ASSERT_FALSE(scanned.empty());
  for (const int degrees : {0, 90, 270}) {
    SCOPED_TRACE(degrees);
    const auto input = degrees == 0 ? scanned
                                    : pt::MakeRotatedPdf("spdf_rot" + std::to_string(degrees),
                                                         scanned, degrees, 1);
    ASSERT_FALSE(input.empty());
    DocumentResult doc;
    const std::string pdf = Searchable(pt::ReadBytes(input), WithWords(), &doc);
    ASSERT_FALSE(pdf.empty());
    const auto out = WriteFile("spdf_rot_out" + std::to_string(degrees) + ".pdf", pdf);
    const auto found = BboxWords(out);
    ASSERT_FALSE(found.empty());
    // Each word read, in the points of the displayed page, against pdftotext's box of it. The
    // scan is read at its own resolution: the page's points over its pixels.
    const std::vector<std::uint8_t> bytes = pt::ReadBytes(input);
    auto points = pdf::PdfDocument::Open(bytes, {.dpi = 72});
    ASSERT_TRUE(points.ok());
    const auto displayed = (*points)->PageSize(0);
    ASSERT_TRUE(displayed.ok());
    EXPECT_LT(doc.pages.at(0).width, DocumentOptions{}.limits.pdf_dpi / 72 * displayed->width / 1.5)
        << "a 100-dpi scan is read near its own resolution";
    const double scale = displayed->width / static_cast<double>(doc.pages.at(0).width);
    std::vector<double> ious = WordIous(doc.pages.at(0), found, scale);
    ASSERT_FALSE(ious.empty());
    std::nth_element(ious.begin(), ious.begin() + ious.size() / 2, ious.end());
    EXPECT_GE(ious[ious.size() / 2], 0.7);
  }
}

TEST_F(SearchablePdfTest, AnImageBecomesAPageAtItsResolutionWithAJpegAsItCame) {
  const auto png = testing::RenderTextPng("Receipt 2026 paid\nThank you");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const cv::Mat image = cv::imread(png.string());
  std::vector<std::uint8_t> jpeg;
  ASSERT_TRUE(cv::imencode(".jpg", image, jpeg));
  // OpenCV writes a JFIF header without a unit; state 150 dots per inch in it.
  ASSERT_GT(jpeg.size(), 20u);
  ASSERT_EQ(std::string(jpeg.begin() + 6, jpeg.begin() + 11), std::string("JFIF\0", 5));
  jpeg[13] = 1;
  jpeg[14] = 0;
  jpeg[15] = 150;
  jpeg[16] = 0;
  jpeg[17] = 150;
  DocumentResult doc;
  const std::string pdf = Searchable(jpeg, WithWords(), &doc);
  ASSERT_FALSE(pdf.empty());
  EXPECT_NE(pdf.find(std::string(jpeg.begin(), jpeg.end())), std::string::npos)
      << "the JPEG's bytes are not in the PDF as they came";
  const auto out = WriteFile("spdf_jpeg.pdf", pdf);
  EXPECT_TRUE(pt::Run("qpdf --check '" + out.string() + "'"));
  const std::string info = Output("pdfinfo '" + out.string() + "'");
  const double w = image.cols * 72.0 / 150;
  const double h = image.rows * 72.0 / 150;
  std::smatch size;
  ASSERT_TRUE(std::regex_search(info, size, std::regex(R"re(Page size:\s+([\d.]+) x ([\d.]+))re")))
      << info;
  EXPECT_NEAR(std::stod(size[1]), w, 0.5);
  EXPECT_NEAR(std::stod(size[2]), h, 0.5);
  EXPECT_EQ(Words(Output("pdftotext '" + out.string() + "' -")), PageText(doc.pages.at(0)));

  // A PNG (no resolution stated: 300 dpi) is embedded losslessly.
  DocumentResult png_doc;
  const std::string png_pdf = Searchable(pt::ReadBytes(png), WithWords(), &png_doc);
  const auto png_out = WriteFile("spdf_png.pdf", png_pdf);
  EXPECT_TRUE(pt::Run("qpdf --check '" + png_out.string() + "'"));
  const auto rendered = pt::TempPath("spdf_png_render");
  // The embedded image is the PNG's pixels exactly (pdfimages extracts it as stored).
  const auto extracted = pt::TempPath("spdf_png_image");
  ASSERT_TRUE(pt::Run("pdfimages -png '" + png_out.string() + "' '" + extracted.string() + "'"));
  const cv::Mat back = cv::imread(extracted.string() + "-000.png");
  ASSERT_EQ(back.size(), image.size());
  EXPECT_EQ(cv::norm(back, image, cv::NORM_INF), 0);
}

TEST_F(SearchablePdfTest, APageReadFromItsTextLayerGetsNoSecondLayer) {
  const auto text = pt::MakeTextPdf("spdf_layer", {"Born digital page one", "And page two"}, "a4");
  ASSERT_FALSE(text.empty());
  DocumentResult doc;
  const std::string pdf = Searchable(pt::ReadBytes(text), WithWords(), &doc);
  ASSERT_FALSE(pdf.empty());
  ASSERT_TRUE(doc.pages.at(0).from_text_layer);
  const auto out = WriteFile("spdf_layer_out.pdf", pdf);
  EXPECT_TRUE(pt::Run("qpdf --check '" + out.string() + "'"));
  EXPECT_EQ(Words(Output("pdftotext '" + out.string() + "' -")),
            Words(Output("pdftotext '" + text.string() + "' -")));
}

// Real photos made into a scanned PDF by img2pdf, as a scanner's software would: the pages stay
// as they were (checked, counted, sized and rendered the same), the text comes back in our
// reading order, and the words land on the boxes they were read at.
TEST_F(SearchablePdfTest, RealPhotosScannedToAPdfComeBackSearchable) {
  OCR_SHARED_TESTDATA_OR_SKIP(shared);
  if (std::system("command -v img2pdf >/dev/null") != 0)
    GTEST_SKIP() << "img2pdf not installed (scripts/bootstrap)";
  const auto scan = pt::TempPath("spdf_real.pdf");
  std::string files;
  for (const char* name : {"paper_page_en.jpg", "results_table_en.jpg", "flow_diagram.png"})
    files += " '" + (shared / "real" / name).string() + "'";
  ASSERT_TRUE(pt::Run("img2pdf -o '" + scan.string() + "'" + files));
  DocumentResult doc;
  const std::string pdf = Searchable(pt::ReadBytes(scan), WithWords(), &doc);
  ASSERT_FALSE(pdf.empty());
  ASSERT_EQ(doc.pages.size(), 3u);
  const auto out = WriteFile("spdf_real_out.pdf", pdf);
  EXPECT_TRUE(pt::Run("qpdf --check '" + out.string() + "'"));
  // Page sizes and rotation as pdfinfo reports them, page by page.
  const auto sizes = [](const std::filesystem::path& file) {
    std::string kept;
    std::istringstream lines(Output("pdfinfo -f 1 -l 3 '" + file.string() + "'"));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("Page ", 0) == 0)
        kept += line + "\n";
    }
    return kept;
  };
  EXPECT_EQ(sizes(out), sizes(scan));
  std::vector<double> ious;
  for (int page = 1; page <= 3; ++page) {
    SCOPED_TRACE(page);
    const std::string p = std::to_string(page);
    const auto before = pt::TempPath("real_before_" + p);
    const auto after = pt::TempPath("real_after_" + p);
    for (const auto& [file, png] : {std::pair{scan, before}, std::pair{out, after}}) {
      ASSERT_TRUE(pt::Run("pdftoppm -r 30 -singlefile -f " + p + " -l " + p + " -png '" +
                          file.string() + "' '" + png.string() + "'"));
    }
    const cv::Mat a = cv::imread(before.string() + ".png");
    const cv::Mat b = cv::imread(after.string() + ".png");
    ASSERT_FALSE(a.empty());
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0);
    const DocumentPage& read = doc.pages[static_cast<std::size_t>(page - 1)];
    // In the layer's own order (-raw: the default order is pdftotext's own layout analysis, which
    // reads a table column by column). Spaces aside: raw extraction joins a line's last word to
    // the next line's first when they touch (a table cell "Cystatin" over its "1"); the spaces
    // between words are checked on the pages above and by the boxes below.
    const auto squeezed = [](std::string text) {
      std::erase_if(text, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
      return text;
    };
    EXPECT_EQ(squeezed(Output("pdftotext -raw -f " + p + " -l " + p + " '" + out.string() + "' -")),
              squeezed(PageText(read)));
    // Our boxes in points: the page's width in points over its width in pixels.
    std::smatch size;
    const std::string info = Output("pdfinfo -f " + p + " -l " + p + " '" + out.string() + "'");
    ASSERT_TRUE(std::regex_search(info, size, std::regex(R"re(size:\s+([\d.]+) x)re"))) << info;
    const double scale = std::stod(size[1]) / read.width;
    const auto found = BboxWords(out, page);
    for (const double iou : WordIous(read, found, scale))
      ious.push_back(iou);
  }
  ASSERT_GT(ious.size(), 50u);
  std::nth_element(ious.begin(), ious.begin() + ious.size() / 2, ious.end());
  EXPECT_GE(ious[ious.size() / 2], 0.7);
}

// PDF/A-2b as far as the tools here can check it (README, "Archive formats"): no validator for
// the whole of ISO 19005-2 is packaged for Debian.
TEST_F(SearchablePdfTest, PdfaCarriesItsIdentificationMetadataAndOutputIntent) {
  if (std::system("command -v xmllint >/dev/null") != 0)
    GTEST_SKIP() << "xmllint not installed (libxml2-utils: scripts/bootstrap)";
  const auto png = testing::RenderTextPng("Archive copy 2026");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const auto text = pt::MakeTextPdf("spdf_pdfa_text", {"Born digital & kept"}, "a4");
  ASSERT_FALSE(text.empty());
  const DocumentOptions options = WithWords();
  for (const std::filesystem::path& input : {png, text}) {
    SCOPED_TRACE(input.string());
    DocumentResult doc;
    const std::string pdf = Searchable(pt::ReadBytes(input), options, &doc, /*pdfa=*/true);
    ASSERT_FALSE(pdf.empty());
    const auto out = WriteFile("spdf_pdfa.pdf", pdf);
    EXPECT_TRUE(pt::Run("qpdf --check '" + out.string() + "'"));
    // The XMP is well-formed and says PDF/A-2b; the information dictionary keeps no dates that
    // it would have to mirror.
    const std::string xmp = Output("pdfinfo -meta '" + out.string() + "'");
    const auto xmp_file = WriteFile("spdf_pdfa.xmp", xmp);
    EXPECT_TRUE(pt::Run("xmllint --noout '" + xmp_file.string() + "'")) << xmp;
    EXPECT_NE(xmp.find("<pdfaid:part>2</pdfaid:part>"), std::string::npos) << xmp;
    EXPECT_NE(xmp.find("<pdfaid:conformance>B</pdfaid:conformance>"), std::string::npos);
    EXPECT_NE(xmp.find("<pdf:Producer>OnnxOCR Server</pdf:Producer>"), std::string::npos);
    const std::string info = Output("pdfinfo '" + out.string() + "'");
    EXPECT_EQ(info.find("CreationDate"), std::string::npos) << info;
    // One sRGB output intent, its profile embedded; every font embedded.
    const std::string objects = Output("qpdf --json=2 --json-key=qpdf '" + out.string() + "'");
    EXPECT_NE(objects.find("/GTS_PDFA1"), std::string::npos);
    EXPECT_NE(objects.find("sRGB IEC61966-2.1"), std::string::npos);
    EXPECT_NE(objects.find("/DestOutputProfile"), std::string::npos);
    const std::string fonts = Output("pdffonts '" + out.string() + "'");
    std::istringstream rows(fonts);
    std::string row;
    int checked = 0;
    for (int i = 0; std::getline(rows, row); ++i) {
      if (i < 2 || row.empty())
        continue;
      EXPECT_NE(row.find(" yes "), std::string::npos) << "not embedded: " << row;
      ++checked;
    }
    EXPECT_GT(checked, 0) << fonts;
  }
  // Without pdfa, a plain PDF.
  DocumentResult doc;
  const std::string plain = Searchable(pt::ReadBytes(png), WithWords(), &doc);
  EXPECT_EQ(plain.find("pdfaid"), std::string::npos);
  EXPECT_EQ(plain.find("/GTS_PDFA1"), std::string::npos);
}

}  // namespace
}  // namespace ocr::document
