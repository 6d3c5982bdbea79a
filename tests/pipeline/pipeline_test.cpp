// End to end through the real models: decode -> detect -> classify -> recognize.
#include "pipeline/pipeline.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "image/decode.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::pipeline {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    runtime_ = new engine::Runtime();
    auto set = LoadModelSet(*runtime_, "ppocrv4", testing::DefaultModelDir(), {});
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    models_ = set->release();
    pipeline_ = new Pipeline(*models_);
  }

  static void TearDownTestSuite() {
    delete pipeline_;
    delete models_;
    delete runtime_;
  }

  static std::vector<TextLine> Ocr(const cv::Mat& image, OcrOptions options = {}) {
    auto result = pipeline_->Run(image, options);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? result->lines : std::vector<TextLine>{};
  }

  static cv::Mat Load(const std::filesystem::path& path) {
    const std::string bytes = testing::ReadFileOrDie(path);
    auto image =
        image::DecodeImage({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
    EXPECT_TRUE(image.ok()) << image.status().ToString();
    return image.ok() ? *image : cv::Mat();
  }

  static const TextLine* Find(const std::vector<TextLine>& lines, const std::string& text) {
    for (const auto& l : lines) {
      if (l.text == text)
        return &l;
    }
    return nullptr;
  }

  static std::string WithoutSpaces(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
  }

  static std::string Dump(const std::vector<TextLine>& lines) {
    std::string s;
    for (const auto& l : lines)
      s += "[" + l.text + "] ";
    return s;
  }

  static double IoU(const Quad& a, const Quad& b) {
    auto poly = [](const Quad& q) {
      std::vector<cv::Point2f> p;
      for (const Point& pt : q)
        p.emplace_back(pt.x, pt.y);
      return p;
    };
    std::vector<cv::Point2f> inter;
    const double i = cv::intersectConvexConvex(poly(a), poly(b), inter);
    const double u = cv::contourArea(poly(a)) + cv::contourArea(poly(b)) - i;
    return u > 0 ? i / u : 0;
  }

  static engine::Runtime* runtime_;
  static ModelSet* models_;
  static Pipeline* pipeline_;
};

engine::Runtime* PipelineTest::runtime_ = nullptr;
ModelSet* PipelineTest::models_ = nullptr;
Pipeline* PipelineTest::pipeline_ = nullptr;

TEST_F(PipelineTest, ReadsRenderedLinesInOrderWithBoxesOnTheText) {
  const auto png = testing::RenderTextPng("Receipt 2026-11-21\nTotal amount: 1,234.50 EUR");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed (scripts/bootstrap installs it)";
  const cv::Mat image = Load(png);
  const auto lines = Ocr(image);
  ASSERT_EQ(lines.size(), 2u) << Dump(lines);
  // The PP-OCRv4 recognizer (a Chinese model) often drops spaces between English words, as the
  // reference pipeline does ("Eppingen,Germany"), so spaces are not compared.
  EXPECT_EQ(WithoutSpaces(lines[0].text), "Receipt2026-11-21");
  EXPECT_EQ(WithoutSpaces(lines[1].text), "Totalamount:1,234.50EUR");
  for (const auto& l : lines)
    EXPECT_GT(l.confidence, 0.9);
  // The first line's ink starts at the 30 px margin; boxes are padded a little by unclip.
  EXPECT_NEAR(lines[0].box[0].x, 30, 8);
  EXPECT_LT(lines[0].box[0].y, lines[1].box[0].y);
  EXPECT_LT(lines[0].box[2].y, lines[1].box[2].y);
}

TEST_F(PipelineTest, TurnsUpsideDownTextWithTheClassifier) {
  const auto png = testing::RenderTextPng("Upside down receipt total 42.00");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed (scripts/bootstrap installs it)";
  cv::Mat image = Load(png);
  cv::rotate(image, image, cv::ROTATE_180);
  const auto with_cls = Ocr(image);
  ASSERT_EQ(with_cls.size(), 1u) << Dump(with_cls);
  EXPECT_EQ(WithoutSpaces(with_cls[0].text), "Upsidedownreceipttotal42.00");
  OcrOptions no_cls;
  no_cls.use_cls = false;
  const auto without = Ocr(image, no_cls);
  EXPECT_TRUE(without.empty() || without[0].text != with_cls[0].text) << Dump(without);
}

TEST_F(PipelineTest, BlankImageHasNoLines) {
  const cv::Mat white(300, 400, CV_8UC3, cv::Scalar(255, 255, 255));
  EXPECT_TRUE(Ocr(white).empty());
}

TEST_F(PipelineTest, DropScoreFiltersLines) {
  const auto png = testing::RenderTextPng("Confidence filter");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed (scripts/bootstrap installs it)";
  OcrOptions strict;
  strict.drop_score = 1.0f;
  EXPECT_TRUE(Ocr(Load(png), strict).empty());
}

TEST_F(PipelineTest, ReadsRealImagesLikeTheReference) {
  OCR_SHARED_TESTDATA_OR_SKIP(data);

  struct Case {
    const char* image;
    std::vector<std::string> lines;
  };

  // Lines read by eye from the images, each also in the reference pipeline's output.
  const std::vector<Case> cases = {
      {"road_sign_en.jpg", {"EPPING", "Twinned with"}},
      {"bank_storefront.jpg", {"中国农业银行", "AGRICULTURAL BANK OF CHINA"}},
      {"results_table_en.jpg", {"Methods", "FPS"}},
      {"train_ticket.jpg", {"G7512次"}},
      {"product_sheet.jpg", {"纯臻营养护发素", "ODMOEM"}},  // ODMOEM runs vertically on a bottle
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.image);
    const auto lines = Ocr(Load(data / "real" / c.image));
    for (const std::string& want : c.lines) {
      EXPECT_NE(Find(lines, want), nullptr) << "missing '" << want << "' in " << Dump(lines);
    }
  }
}

TEST_F(PipelineTest, BoxesMatchTheReferenceWithinTolerance) {
  OCR_SHARED_TESTDATA_OR_SKIP(data);

  // Reference boxes of the Python pipeline on the same images and models.
  struct Expected {
    const char* image;
    const char* text;
    Quad box;
  };

  const std::vector<Expected> expected = {
      {"road_sign_en.jpg",
       "EPPING",
       {Point{78, 122}, Point{271, 126}, Point{271, 163}, Point{78, 159}}},
      {"road_sign_en.jpg",
       "Twinned with",
       {Point{100, 181}, Point{248, 184}, Point{247, 206}, Point{100, 203}}},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.text);
    const auto lines = Ocr(Load(data / "real" / e.image));
    const TextLine* line = Find(lines, e.text);
    ASSERT_NE(line, nullptr) << Dump(lines);
    EXPECT_GE(IoU(line->box, e.box), 0.9);
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(line->box[i].x, e.box[i].x, 2) << "corner " << i;
      EXPECT_NEAR(line->box[i].y, e.box[i].y, 2) << "corner " << i;
    }
  }
}

}  // namespace
}  // namespace ocr::pipeline
