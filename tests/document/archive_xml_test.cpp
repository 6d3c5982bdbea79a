// hOCR and ALTO from hand-built pages: every line and word placed with its box and confidence,
// words cut from a line that has none, text escaped for XML, one document for all pages. The
// schema validation of real output is tests/cli (xmllint against ../shared/schemas).
#include "document/archive_xml.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ocr::document {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

pipeline::Quad Box(float x0, float y0, float x1, float y1) {
  return {{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}};
}

DocumentResult TwoPages() {
  DocumentResult doc;
  doc.page_count = 2;
  DocumentPage first;
  first.page = 0;
  first.width = 400;
  first.height = 200;
  pipeline::TextLine words;
  words.text = "Total 42";
  words.confidence = 0.9f;
  words.box = Box(10, 20, 210, 40);
  words.words = {{"Total", 0.95f, Box(10, 20, 110, 40)}, {"42", 0.5f, Box(150, 20, 210, 40)}};
  first.lines.push_back(words);
  pipeline::TextLine plain;  // no word boxes: cut from the line's box
  plain.text = "a<b & \"c\"\x01 dd";
  plain.confidence = 0.8f;
  plain.box = Box(0, 100, 120, 120);
  first.lines.push_back(plain);
  doc.pages.push_back(first);
  DocumentPage second;
  second.page = 3;
  second.width = 50;
  second.height = 60;
  pipeline::TextLine han;
  han.text = "中文";
  han.confidence = 1.0f;
  han.box = Box(5, 5, 45, 25);
  second.lines.push_back(han);
  doc.pages.push_back(second);
  return doc;
}

TEST(HocrTest, PlacesEveryWordWithItsBoxAndConfidence) {
  const std::string hocr = FormatHocr(TwoPages());
  EXPECT_THAT(hocr, HasSubstr("<html xmlns='http://www.w3.org/1999/xhtml'"));
  EXPECT_THAT(hocr, HasSubstr("class='ocr_page' id='page_1' title='bbox 0 0 400 200; ppageno 0'"));
  EXPECT_THAT(hocr, HasSubstr("class='ocr_page' id='page_2' title='bbox 0 0 50 60; ppageno 3'"));
  EXPECT_THAT(hocr, HasSubstr("class='ocr_carea'"));
  EXPECT_THAT(hocr, HasSubstr("class='ocr_line' id='line_1_1' title='bbox 10 20 210 40; "
                              "baseline 0 0; x_size 20'"));
  EXPECT_THAT(hocr, HasSubstr("title='bbox 10 20 110 40; x_wconf 95'>Total</span>"));
  EXPECT_THAT(hocr, HasSubstr("title='bbox 150 20 210 40; x_wconf 50'>42</span>"));
  // Cut from the line: "a<b" is the first 3 of 13 characters of a 120 px line.
  EXPECT_THAT(hocr, HasSubstr("title='bbox 0 100 28 120; x_wconf 80'>a&lt;b</span>"));
  EXPECT_THAT(hocr, HasSubstr(">&amp;</span>"));
  EXPECT_THAT(hocr, HasSubstr(">&quot;c&quot;</span>"));  // the control character dropped
  EXPECT_THAT(hocr, HasSubstr(">中文</span>"));
  EXPECT_THAT(hocr, Not(HasSubstr("\x01")));
}

TEST(AltoTest, PlacesEveryStringWithSpacesBetween) {
  const std::string alto = FormatAlto(TwoPages());
  EXPECT_THAT(alto, HasSubstr("<alto xmlns='http://www.loc.gov/standards/alto/ns-v4#'"));
  EXPECT_THAT(alto, HasSubstr("<MeasurementUnit>pixel</MeasurementUnit>"));
  EXPECT_THAT(alto, HasSubstr("<Page ID='p1' PHYSICAL_IMG_NR='1' WIDTH='400' HEIGHT='200'>"));
  EXPECT_THAT(alto, HasSubstr("<Page ID='p2' PHYSICAL_IMG_NR='2' WIDTH='50' HEIGHT='60'>"));
  EXPECT_THAT(alto, HasSubstr("<String ID='p1_l1_w1' CONTENT='Total' HPOS='10' VPOS='20' "
                              "WIDTH='100' HEIGHT='20' WC='0.950'/>"));
  EXPECT_THAT(alto, HasSubstr("<SP HPOS='110' VPOS='20' WIDTH='40'/>"));
  EXPECT_THAT(alto, HasSubstr("CONTENT='42' HPOS='150' VPOS='20' WIDTH='60' HEIGHT='20' "
                              "WC='0.500'"));
  EXPECT_THAT(alto, HasSubstr("CONTENT='a&lt;b'"));
  EXPECT_THAT(alto, HasSubstr("CONTENT='中文'"));
  EXPECT_THAT(alto, Not(HasSubstr("\x01")));
}

}  // namespace
}  // namespace ocr::document
