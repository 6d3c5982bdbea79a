#include "cli/model_flags.h"

#include <filesystem>
#include <fstream>

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

TEST(ModelFlagsTest, Int8SetIsTheDefaultWhenCompleteAndReferenceReadsFp32) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "model_flags_default_sets";
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(DefaultSetsIn(dir).empty());
  std::filesystem::create_directories(dir / "ppocrv4");
  std::filesystem::create_directories(dir / "ppocrv4-int8" / "det");
  std::ofstream(dir / "ppocrv4-int8" / "det" / "det.onnx") << "x";
  // Without its recognizer the int8 folder is a half-written set: not offered.
  auto specs = DefaultSetsIn(dir);
  ASSERT_EQ(specs.size(), 1U);
  EXPECT_EQ(specs[0].name, "ppocrv4");
  EXPECT_EQ(ReferenceSet(specs).name, "ppocrv4");
  std::filesystem::create_directories(dir / "ppocrv4-int8" / "rec");
  std::ofstream(dir / "ppocrv4-int8" / "rec" / "rec.onnx") << "x";
  specs = DefaultSetsIn(dir);
  ASSERT_EQ(specs.size(), 2U);
  EXPECT_EQ(specs[0].name, "ppocrv4-int8");
  EXPECT_EQ(specs[0].dir, (dir / "ppocrv4-int8").lexically_normal());
  EXPECT_EQ(specs[1].name, "ppocrv4");
  EXPECT_EQ(ReferenceSet(specs).name, "ppocrv4");
  EXPECT_EQ(ReferenceSet(specs).dir, (dir / "ppocrv4").lexically_normal());
  // Sets named by --models: the reference reads the first when none is the fp32 set.
  EXPECT_EQ(ReferenceSet({{"a", "x"}, {"b", "y"}}).name, "a");
  std::filesystem::remove_all(dir);
}

TEST(ModelFlagsTest, SetsWhoseManifestNamesAFamilyAreServedAfterTheDefaultsByName) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "model_flags_pulled_sets";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "ppocrv4");
  for (const char* name : {"ppocrv6-tiny", "a-mixed", ".ppocrv6-small.partial"}) {
    std::filesystem::create_directories(dir / name);
    std::ofstream(dir / name / "manifest.json") << R"({"family": "ppocrv6"})";
  }
  // A folder without a manifest, or whose manifest names no family, is no pulled set.
  std::filesystem::create_directories(dir / "scratch");
  std::filesystem::create_directories(dir / "notes");
  std::ofstream(dir / "notes" / "manifest.json") << R"({"made_by": "hand"})";
  const auto specs = DefaultSetsIn(dir);
  ASSERT_EQ(specs.size(), 3U);
  EXPECT_EQ(specs[0].name, "ppocrv4");
  EXPECT_EQ(specs[1].name, "a-mixed");
  EXPECT_EQ(specs[2].name, "ppocrv6-tiny");
  EXPECT_EQ(specs[2].dir, (dir / "ppocrv6-tiny").lexically_normal());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ocr::cli
