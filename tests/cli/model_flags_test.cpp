#include "cli/model_flags.h"

#include <gtest/gtest.h>

namespace ocr::cli {
namespace {

TEST(ModelFlagsTest, ParsesNameEqualsDir) {
  auto spec = ParseModelSpec("ppocrv5=/models/ppocrv5");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "ppocrv5");
  EXPECT_EQ(spec->dir, "/models/ppocrv5");
}

TEST(ModelFlagsTest, BareDirIsNamedAfterItsFolder) {
  auto spec = ParseModelSpec("/srv/sets/ppocrv3/");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "ppocrv3");
}

TEST(ModelFlagsTest, RejectsEmptyPartsAndDuplicates) {
  EXPECT_FALSE(ParseModelSpec("=/x").ok());
  EXPECT_FALSE(ParseModelSpec("name=").ok());
  auto dup = ResolveModelSpecs({"a=/x", "a=/y"});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kInvalidArgument);
}

TEST(ModelFlagsTest, FirstGivenSetIsTheDefault) {
  auto specs = ResolveModelSpecs({"b=/x", "a=/y"});
  ASSERT_TRUE(specs.ok());
  EXPECT_EQ(specs->front().name, "b");
}

}  // namespace
}  // namespace ocr::cli
