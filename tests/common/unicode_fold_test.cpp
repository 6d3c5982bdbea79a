// FoldCompatibilityIdeographs: look-alike Han code points to the characters they stand for, and
// nothing else.
#include "common/unicode_fold.h"

#include <string>

#include <gtest/gtest.h>

namespace ocr {
namespace {

TEST(UnicodeFoldTest, FoldsKangxiRadicalsAndCompatibilityIdeographs) {
  EXPECT_EQ(FoldCompatibilityIdeographs("\u2F26\u2F64"), "\u5B50\u7528");  // radicals
  EXPECT_EQ(FoldCompatibilityIdeographs("\u2F00\u2FD5"), "\u4E00\u9FA0");  // the block's ends
  EXPECT_EQ(FoldCompatibilityIdeographs("\u2E9F\u2EF3"), "\u6BCD\u9F9F");  // radical supplement
  EXPECT_EQ(FoldCompatibilityIdeographs("\uF92C\uF979"), "\u90CE\u51C9");  // compatibility block
  EXPECT_EQ(FoldCompatibilityIdeographs("\U0002F800"), "\u4E3D");          // its supplement
  EXPECT_EQ(FoldCompatibilityIdeographs("Total \u2F26 42"), "Total \u5B50 42");
  EXPECT_TRUE(HasCompatibilityIdeographs("a\u2F26"));
}

TEST(UnicodeFoldTest, LeavesEverythingElse) {
  // Unified ideographs of the compatibility block have no decomposition; radicals of the
  // supplement without one stay too.
  for (const char* kept : {"\uFA0E\uFA0F", "\u2E80", "plain ASCII", "\u5B50 \u7528",
                           "\uFF21\uFF08\uFF09",  // full-width forms: not a blanket NFKC
                           "\uFB01", "\u00BD", "\u3000", ""}) {
    EXPECT_EQ(FoldCompatibilityIdeographs(kept), kept);
    EXPECT_FALSE(HasCompatibilityIdeographs(kept)) << kept;
  }
  // Invalid UTF-8 is copied byte for byte around what is folded.
  const std::string bad = std::string("\xff\xfe") + "\u2F26" + "\xc3";
  EXPECT_EQ(FoldCompatibilityIdeographs(bad), std::string("\xff\xfe") + "\u5B50" + "\xc3");
}

}  // namespace
}  // namespace ocr
