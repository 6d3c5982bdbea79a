#include "common/script.h"

#include <gtest/gtest.h>

namespace ocr {
namespace {

TEST(ScriptTest, ClassifiesTheCharactersThatDecideSpacingAndPunctuation) {
  EXPECT_EQ(ClassifyScript(U'a'), ScriptClass::kLatinLetter);
  EXPECT_EQ(ClassifyScript(U'Z'), ScriptClass::kLatinLetter);
  EXPECT_EQ(ClassifyScript(U'7'), ScriptClass::kLatinLetter);
  EXPECT_EQ(ClassifyScript(U'é'), ScriptClass::kLatinLetter);
  EXPECT_EQ(ClassifyScript(U'('), ScriptClass::kLatinMark);
  EXPECT_EQ(ClassifyScript(U'-'), ScriptClass::kLatinMark);
  EXPECT_EQ(ClassifyScript(U'中'), ScriptClass::kCjk);
  EXPECT_EQ(ClassifyScript(U'か'), ScriptClass::kCjk);
  EXPECT_EQ(ClassifyScript(U'カ'), ScriptClass::kCjk);
  EXPECT_EQ(ClassifyScript(U'한'), ScriptClass::kCjk);
  EXPECT_EQ(ClassifyScript(U'々'), ScriptClass::kCjk);
  EXPECT_EQ(ClassifyScript(U'（'), ScriptClass::kOther);
  EXPECT_EQ(ClassifyScript(U'，'), ScriptClass::kOther);
  EXPECT_EQ(ClassifyScript(U'Ж'), ScriptClass::kOther);
  EXPECT_EQ(ClassifyScript(U' '), ScriptClass::kOther);
  EXPECT_EQ(ClassifyScript(U'\n'), ScriptClass::kOther);
}

TEST(ScriptTest, ClassifiesTheFirstCharacterOfUtf8) {
  EXPECT_EQ(ClassifyScript(std::string_view("中a")), ScriptClass::kCjk);
  EXPECT_EQ(ClassifyScript(std::string_view("a中")), ScriptClass::kLatinLetter);
  EXPECT_EQ(ClassifyScript(std::string_view("")), ScriptClass::kOther);
  EXPECT_EQ(ClassifyScript(std::string_view("\xff")), ScriptClass::kOther);
}

}  // namespace
}  // namespace ocr
