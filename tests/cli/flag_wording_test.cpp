#include "cli/flag_wording.h"

#include <gtest/gtest.h>

namespace ocr::cli {
namespace {

TEST(FlagWordingTest, NamesTheRunFlagsForTheApiFields) {
  EXPECT_EQ(InFlagTerms("page_range must look like 0-3,7 (pages from 0)"),
            "--pages must look like 0-3,7 (pages from 0)");
  EXPECT_EQ(InFlagTerms("output_format must be one of json, text (got 'docx')"),
            "--format must be one of json, text (got 'docx')");
  EXPECT_EQ(InFlagTerms("drop_score must be a number from 0 to 1"),
            "--drop-score must be a number from 0 to 1");
  EXPECT_EQ(InFlagTerms("send force_ocr, paginate_output or return_word_boxes."),
            "send --force-ocr, --paginate or --word-boxes.");
  EXPECT_EQ(InFlagTerms("det_limit_side_len and det_limit_type"),
            "--det-limit-side-len and --det-limit-type");
}

TEST(FlagWordingTest, FieldEqualsValueBecomesFlagAndValue) {
  EXPECT_EQ(InFlagTerms("output_format=pdf: write PDF/A-2b"), "--format pdf: write PDF/A-2b");
}

TEST(FlagWordingTest, LeavesPathsLongerNamesAndOneWordFieldsAlone) {
  for (const char* unchanged :
       {"/models/page_range/rec.onnx", "cannot read ./output_format.txt", "my_page_range",
        "page_ranges", "page_range.json", "-page_range", "cls/cls.onnx is missing",
        "the model has no cls", "pdfa needs a PDF", ""}) {
    EXPECT_EQ(InFlagTerms(unchanged), unchanged);
  }
}

}  // namespace
}  // namespace ocr::cli
