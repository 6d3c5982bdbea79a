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

TEST_F(ModelSetTest, TheDefaultSetIsPpOcrV4WithEachFilesSha256) {
  auto set = LoadModelSet(runtime_, "ppocrv4", testing::DefaultModelDir(), {});
  ASSERT_OK(set);
  const ModelSet& m = **set;
  EXPECT_EQ(m.det_part.family, ModelFamily::kPpocrV4);
  EXPECT_EQ(m.rec_part.family, ModelFamily::kPpocrV4);
  EXPECT_EQ(m.cls_part.family, ModelFamily::kPpocrV4);
  EXPECT_EQ(m.det_part.file, testing::DefaultModelDir() / "det" / "det.onnx");
  // scripts/bootstrap's pins of the npm package's files.
  EXPECT_EQ(m.det_part.sha256, "30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff");
  EXPECT_EQ(m.rec_part.sha256, "06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0");
  EXPECT_EQ(m.cls_part.sha256, "491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640");
  EXPECT_EQ(m.dictionary_sha256,
            "28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7");
}

TEST_F(ModelSetTest, AManifestTakesItsPartsFromAnotherSetWithTheirFamilies) {
  // A set of nothing but a manifest: every file is the default set's, beside it.
  const fs::path root = fs::path(::testing::TempDir()) / "modelset_manifest";
  fs::remove_all(root);
  fs::create_directories(root / "mixed");
  fs::create_symlink(testing::DefaultModelDir(), root / "ppocrv4");
  std::ofstream(root / "mixed" / "manifest.json") << R"({"family": "ppocrv6",
    "det": {"path": "../ppocrv4/det/det.onnx"},
    "rec": {"path": "../ppocrv4/rec/rec.onnx", "family": "ppocrv4",
            "dictionary": "../ppocrv4/ppocr_keys_v1.txt"},
    "cls": {"path": "../ppocrv4/cls/cls.onnx"}})";
  auto set = LoadModelSet(runtime_, "mixed", root / "mixed", {});
  ASSERT_OK(set);
  const ModelSet& m = **set;
  EXPECT_EQ(m.det_part.family, ModelFamily::kPpocrV6);  // the set's
  EXPECT_EQ(m.rec_part.family, ModelFamily::kPpocrV4);  // its own
  EXPECT_EQ(m.cls_part.family, ModelFamily::kPpocrV4);  // its input's: PP-OCRv6 has none
  EXPECT_EQ(m.det_part.file, root / "ppocrv4" / "det" / "det.onnx");
  EXPECT_EQ(m.dictionary_path, root / "ppocrv4" / "ppocr_keys_v1.txt");
  EXPECT_EQ(m.charset.size(), 6625u);
  EXPECT_EQ(m.rec_part.sha256, "06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0");
}

TEST_F(ModelSetTest, AManifestsMissingPartOrSecondRecognizerIsRefusedByName) {
  const fs::path dir = CopyOfDefaultSet("manifest_missing");
  std::ofstream(dir / "manifest.json") << R"({"cls": {"path": "../nowhere/cls.onnx"}})";
  auto missing = LoadModelSet(runtime_, "broken", dir, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_NE(missing.status().message().find("nowhere/cls.onnx"), std::string::npos)
      << missing.status().message();
  std::ofstream(dir / "manifest.json", std::ios::trunc)
      << R"({"rec_second": {"path": "rec/rec.onnx"}})";
  auto second = LoadModelSet(runtime_, "broken", dir, {});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("rec_second"), std::string::npos);
  std::ofstream(dir / "manifest.json", std::ios::trunc) << R"({"family": "ppocrv7"})";
  auto family = LoadModelSet(runtime_, "broken", dir, {});
  ASSERT_FALSE(family.ok());
  EXPECT_NE(family.status().message().find("manifest.json: family is \"ppocrv7\""),
            std::string::npos)
      << family.status().message();
}

TEST_F(ModelSetTest, PpOcrV6TinyWithoutAManifestIsToldByItsClassCount) {
  OCR_SHARED_V6_TINY_OR_SKIP(dir);
  auto set = LoadModelSet(runtime_, "v6", dir, {});
  ASSERT_OK(set);
  const ModelSet& m = **set;
  EXPECT_EQ(m.charset.size(), 6906u);  // blank, 6,904 lines, space
  EXPECT_EQ(m.rec_part.family, ModelFamily::kPpocrV6);
  EXPECT_EQ(m.det_part.family, ModelFamily::kPpocrV6);
  EXPECT_EQ(m.cls_part.family, ModelFamily::kPpocrV4);
  // SOURCE.md's digests.
  EXPECT_EQ(m.det_part.sha256, "b88860aa6ca065ebe177001f14fe1550c356596d306c4989b2074c0e249e2a02");
  EXPECT_EQ(m.rec_part.sha256, "4831ab3e84fc176b8a0839da81076a550301a7468f3c3eb3e9b3cdb8e8721cad");
  EXPECT_EQ(m.dictionary_sha256,
            "c5cbe34ef40c29c4df07ed012bf96569cb69a2d2a01a07027e9f13cb832bd9cd");
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
