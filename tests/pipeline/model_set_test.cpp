#include "pipeline/model_set.h"

#include <fstream>

#include <gtest/gtest.h>

#include "support/test_paths.h"

namespace ocr::pipeline {
namespace {

namespace fs = std::filesystem;

class ModelSetTest : public ::testing::Test {
 protected:
  // A copy of the default set in a temp folder (models linked, dictionary copied), to break.
  fs::path CopyOfDefaultSet(const std::string& name) {
    const fs::path src = testing::DefaultModelDir();
    const fs::path dst = fs::path(::testing::TempDir()) / ("modelset_" + name);
    fs::remove_all(dst);
    for (const char* sub : {"det", "rec", "cls"}) {
      fs::create_directories(dst / sub);
      fs::create_symlink(src / sub / (std::string(sub) + ".onnx"),
                         dst / sub / (std::string(sub) + ".onnx"));
    }
    fs::copy_file(src / "ppocr_keys_v1.txt", dst / "ppocr_keys_v1.txt");
    return dst;
  }

  engine::Runtime runtime_;
};

TEST_F(ModelSetTest, LoadsDefaultSetAndReadsSizesFromModels) {
  auto set = LoadModelSet(runtime_, "ppocrv4", testing::DefaultModelDir(), {});
  ASSERT_OK(set);
  EXPECT_EQ((*set)->name, "ppocrv4");
  EXPECT_EQ((*set)->charset.size(), 6625u);  // 6623 dictionary lines + blank + space
  EXPECT_EQ((*set)->charset.front(), "");
  EXPECT_EQ((*set)->charset.back(), " ");
  EXPECT_EQ((*set)->rec_height, 48);
  EXPECT_EQ((*set)->rec_width, 0);  // dynamic
  ASSERT_NE((*set)->cls, nullptr);
  EXPECT_EQ((*set)->cls_height, 48);
  EXPECT_EQ((*set)->cls_width, 192);
  EXPECT_EQ((*set)->dictionary_path.filename(), "ppocr_keys_v1.txt");
}

TEST_F(ModelSetTest, DictionaryOneLineShortIsRefusedWithBothNumbers) {
  const fs::path dir = CopyOfDefaultSet("short_dict");
  auto lines = ReadDictionary(dir / "ppocr_keys_v1.txt");
  ASSERT_OK(lines);
  lines->pop_back();
  {
    std::ofstream out(dir / "ppocr_keys_v1.txt", std::ios::trunc);
    for (const auto& l : *lines)
      out << l << "\n";
  }
  auto set = LoadModelSet(runtime_, "broken", dir, {});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_NE(set.status().message().find("6625 classes"), std::string::npos)
      << set.status().message();
  EXPECT_NE(set.status().message().find("6622 lines"), std::string::npos);
}

TEST_F(ModelSetTest, MissingRecognizerNamesTheFile) {
  const fs::path dir = CopyOfDefaultSet("no_rec");
  fs::remove(dir / "rec" / "rec.onnx");
  auto set = LoadModelSet(runtime_, "broken", dir, {});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_NE(set.status().message().find("rec/rec.onnx"), std::string::npos);
}

TEST_F(ModelSetTest, ClassifierIsOptional) {
  const fs::path dir = CopyOfDefaultSet("no_cls");
  fs::remove_all(dir / "cls");
  auto set = LoadModelSet(runtime_, "nocls", dir, {});
  ASSERT_OK(set);
  EXPECT_EQ((*set)->cls, nullptr);
}

TEST_F(ModelSetTest, WrongModelInTheRecognizerSlotIsRefused) {
  const fs::path dir = CopyOfDefaultSet("swapped");
  fs::remove(dir / "rec" / "rec.onnx");
  fs::create_symlink(testing::DefaultModelDir() / "det" / "det.onnx", dir / "rec" / "rec.onnx");
  auto set = LoadModelSet(runtime_, "broken", dir, {});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_NE(set.status().message().find("rec.onnx"), std::string::npos) << set.status().message();
}

TEST_F(ModelSetTest, MissingFolderIsReported) {
  auto set = LoadModelSet(runtime_, "nope", "/nonexistent/set", {});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("/nonexistent/set"), std::string::npos);
}

TEST(ClassCountTest, AcceptsPpOcrV5Numbers) {
  // PP-OCRv5: 18,383 dictionary lines and 18,385 classes.
  EXPECT_TRUE(CheckClassCount(18385, 18383, "rec.onnx", "ppocrv5_dict.txt").ok());
  EXPECT_FALSE(CheckClassCount(18385, 18384, "rec.onnx", "ppocrv5_dict.txt").ok());
  EXPECT_FALSE(CheckClassCount(6625, 6624, "rec.onnx", "ppocr_keys_v1.txt").ok());
}

TEST(FindDictionaryTest, PrefersTheDictionaryAmongSeveralTextFiles) {
  const fs::path dir = fs::path(::testing::TempDir()) / "dicts";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "README.txt") << "notes\n";
  std::ofstream(dir / "ppocrv5_dict.txt") << "a\nb\n";
  auto found = FindDictionary(dir);
  ASSERT_OK(found);
  EXPECT_EQ(found->filename(), "ppocrv5_dict.txt");
  std::ofstream(dir / "en_dict.txt") << "a\n";
  auto ambiguous = FindDictionary(dir);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("en_dict.txt"), std::string::npos);
}

TEST(ReadDictionaryTest, HandlesCrLfAndNoFinalNewline) {
  const fs::path path = fs::path(::testing::TempDir()) / "crlf_dict.txt";
  std::ofstream(path, std::ios::binary) << "a\r\nb\r\nc";
  auto lines = ReadDictionary(path);
  ASSERT_OK(lines);
  EXPECT_EQ(*lines, (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace ocr::pipeline
