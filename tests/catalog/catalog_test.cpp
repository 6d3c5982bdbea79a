#include "catalog/catalog.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_paths.h"

namespace ocr::catalog {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSha = "c5cbe34ef40c29c4df07ed012bf96569cb69a2d2a01a07027e9f13cb832bd9cd";

// A small valid catalog with `files` and `sets` spliced in.
std::string CatalogText(const std::string& files, const std::string& sets) {
  return R"({"catalog_version": 1, "files": {)" + files + R"(}, "sets": {)" + sets + "}}";
}

std::string OneFile(const std::string& id = "det", const std::string& extra = "") {
  return "\"" + id + R"(": {"url": "https://example.org/a/det.onnx", "bytes": 3, "sha256": ")" +
         kSha + "\"" + extra + "}";
}

std::string TwoFiles() {
  return OneFile("det") + "," + OneFile("rec") + "," +
         R"("dict": {"url": "https://example.org/a/dict.txt", "lines": 4})";
}

std::string PlainSet(const std::string& name = "s", const std::string& extra = "") {
  return "\"" + name + R"(": {"files": {"det/det.onnx": "det", "rec/rec.onnx": "rec",
      "d.txt": "dict"}, "manifest": {"family": "ppocrv6", "det": {"path": "det/det.onnx"},
      "rec": {"path": "rec/rec.onnx", "dictionary": "d.txt"}})" +
         extra + "}";
}

Status ParseError(const std::string& text) {
  return Catalog::Parse(text, "test.json").status();
}

TEST(CatalogTest, BuiltInCatalogHasThePinnedV6Sets) {
  const Result<Catalog> catalog = Catalog::BuiltIn();
  ASSERT_OK(catalog);
  EXPECT_EQ(catalog->SetNames(),
            "ppocrv6-medium, ppocrv6-small, ppocrv6-tiny or ppocrv6-tiny-det-v4-rec");
  const CatalogSet* tiny = catalog->FindSet("ppocrv6-tiny");
  ASSERT_NE(tiny, nullptr);
  ASSERT_EQ(tiny->files.size(), 3U);
  const CatalogFile* det = catalog->FindFile("PP-OCRv6_tiny_det");
  ASSERT_NE(det, nullptr);
  EXPECT_EQ(det->bytes, 1780590);
  EXPECT_EQ(det->sha256, "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8");
  EXPECT_EQ(det->url,
            "https://huggingface.co/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/"
            "2ba1506c0380b8f0b03dd142459aac66d4421f6c/inference.onnx");
  const CatalogFile* dict = catalog->FindFile("ppocrv6_tiny_dict.txt");
  ASSERT_NE(dict, nullptr);
  EXPECT_EQ(dict->bytes, 27156);
  EXPECT_EQ(dict->sha256, kSha);
  // The small and medium dictionary's digest is not pinned: its line count is checked instead.
  const CatalogFile* v6_dict = catalog->FindFile("ppocrv6_dict.txt");
  ASSERT_NE(v6_dict, nullptr);
  EXPECT_TRUE(v6_dict->sha256.empty());
  EXPECT_EQ(v6_dict->lines, 18708);
  ASSERT_TRUE(tiny->manifest.cls.has_value());
  EXPECT_EQ(tiny->manifest.cls->path, "../ppocrv4/cls/cls.onnx");
  EXPECT_EQ(tiny->optional_parts, std::vector<std::string>{"cls"});
  const CatalogSet* mixed = catalog->FindSet("ppocrv6-tiny-det-v4-rec");
  ASSERT_NE(mixed, nullptr);
  EXPECT_TRUE(mixed->files.empty());
  EXPECT_EQ(mixed->needs, std::vector<std::string>{"ppocrv6-tiny"});
  ASSERT_TRUE(mixed->manifest.rec.has_value());
  EXPECT_EQ(mixed->manifest.rec->dictionary, "../ppocrv4-int8/ppocr_keys_v1.txt");
  for (const CatalogSet& set : catalog->sets()) {
    for (const SetFile& file : set.files)
      EXPECT_EQ(catalog->FileOf(file).id, file.file_id);
  }
}

TEST(CatalogTest, ParsesAValidCatalog) {
  const Result<Catalog> catalog = Catalog::Parse(CatalogText(TwoFiles(), PlainSet()), "t");
  ASSERT_OK(catalog);
  EXPECT_EQ(catalog->where(), "t");
  ASSERT_EQ(catalog->sets().size(), 1U);
  EXPECT_EQ(catalog->sets()[0].files[0].path, "d.txt");  // by path
  EXPECT_EQ(catalog->FindFile("dict")->lines, 4);
  EXPECT_EQ(catalog->FindSet("x"), nullptr);
}

TEST(CatalogTest, RefusesWhatItCannotRead) {
  EXPECT_THAT(ParseError("not json").message(), HasSubstr("test.json: not a JSON object"));
  EXPECT_THAT(ParseError(R"({"files": {}, "sets": {}})").message(),
              HasSubstr("catalog_version must be 1"));
  EXPECT_THAT(ParseError(R"({"catalog_version": 2, "files": {}, "sets": {}})").message(),
              HasSubstr("catalog_version must be 1"));
  EXPECT_THAT(ParseError(R"({"catalog_version": 1, "sets": {}})").message(),
              HasSubstr("files must be an object"));
  EXPECT_THAT(ParseError(R"({"catalog_version": 1, "files": {}, "sets": {}, "x": 1})").message(),
              HasSubstr("x is not a key of the catalog"));
  EXPECT_EQ(ParseError("[]").code(), StatusCode::kInvalidArgument);
}

TEST(CatalogTest, RefusesABadFileEntry) {
  // A misspelt key must not turn a check off silently.
  EXPECT_THAT(ParseError(CatalogText(OneFile("det", R"(, "sha265": "x")"), "")).message(),
              HasSubstr("files.det.sha265 is not a key of the catalog"));
  EXPECT_THAT(
      ParseError(CatalogText(R"("det": {"bytes": 3, "sha256": ")" + std::string(kSha) + "\"}", ""))
          .message(),
      HasSubstr("files.det.url is missing"));
  EXPECT_THAT(
      ParseError(
          CatalogText(R"("det": {"url": "ftp://x/y", "sha256": ")" + std::string(kSha) + "\"}", ""))
          .message(),
      HasSubstr("only http, https and file URLs"));
  EXPECT_THAT(
      ParseError(CatalogText(R"("det": {"url": "https://x/y", "sha256": "ABC"})", "")).message(),
      HasSubstr("files.det.sha256 must be 64 lower-case hex digits"));
  EXPECT_THAT(
      ParseError(CatalogText(R"("det": {"url": "https://x/y", "bytes": -4, "lines": 3})", ""))
          .message(),
      HasSubstr("files.det.bytes must be a whole number"));
  EXPECT_THAT(ParseError(CatalogText(R"("det": {"url": "https://x/y", "bytes": 4})", "")).message(),
              HasSubstr("neither a sha256 nor a line count"));
}

TEST(CatalogTest, RefusesABadSetEntry) {
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet("Bad/Name"))).message(),
              HasSubstr("a set's name is its folder's"));
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet(".hidden"))).message(),
              HasSubstr("a set's name is its folder's"));
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet("s", R"(, "needz": [])"))).message(),
              HasSubstr("sets.s.needz is not a key"));
  const std::string unknown_file = R"("s": {"files": {"det/det.onnx": "nope"},
      "manifest": {"det": {"path": "det/det.onnx"}, "rec": {"path": "det/det.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), unknown_file)).message(),
              HasSubstr("sets.s.files.det/det.onnx names 'nope', which is not in the catalog"));
  const std::string escaping = R"("s": {"files": {"../det.onnx": "det"},
      "manifest": {"det": {"path": "det/det.onnx"}, "rec": {"path": "det/det.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), escaping)).message(),
              HasSubstr("must be a plain relative path inside the set's folder"));
  const std::string manifest_file = R"("s": {"files": {"manifest.json": "det"},
      "manifest": {"det": {"path": "manifest.json"}, "rec": {"path": "manifest.json"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), manifest_file)).message(),
              HasSubstr("manifest.json is the manifest the installer writes"));
  const std::string no_rec = R"("s": {"files": {"det/det.onnx": "det"},
      "manifest": {"det": {"path": "det/det.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), no_rec)).message(),
              HasSubstr("must name its det and rec parts"));
  const std::string bad_family = R"("s": {"files": {"det/det.onnx": "det"},
      "manifest": {"family": "ppocrv9", "det": {"path": "det/det.onnx"},
                   "rec": {"path": "det/det.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), bad_family)).message(),
              HasSubstr("family is \"ppocrv9\""));
  // A part inside the set must be one of its files.
  const std::string missing_part = R"("s": {"files": {"det/det.onnx": "det"},
      "manifest": {"det": {"path": "det/det.onnx"}, "rec": {"path": "rec/rec.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), missing_part)).message(),
              HasSubstr("sets.s.manifest.rec.path 'rec/rec.onnx' is not one of sets.s.files"));
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet("s", R"(, "optional_parts": ["det"])")))
                  .message(),
              HasSubstr("'det' cannot be optional"));
  const std::string written_files = R"("s": {"files": {"det/det.onnx": "det"},
      "manifest": {"det": {"path": "det/det.onnx"}, "rec": {"path": "det/det.onnx"},
                   "files": {}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), written_files)).message(),
              HasSubstr("the installer writes a set's files record"));
}

TEST(CatalogTest, ChecksPartsInOtherSetsAndNeeds) {
  const std::string mixed = R"("m": {"files": {}, "needs": ["s"],
      "manifest": {"det": {"path": "../s/det/det.onnx"},
                   "rec": {"path": "../elsewhere/rec/rec.onnx", "dictionary": "../elsewhere/k.txt"}}})";
  ASSERT_OK(Catalog::Parse(CatalogText(TwoFiles(), PlainSet() + "," + mixed), "t"));
  const std::string not_needed = R"("m": {"files": {},
      "manifest": {"det": {"path": "../s/det/det.onnx"}, "rec": {"path": "../s/rec/rec.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet() + "," + not_needed)).message(),
              HasSubstr("reaches into s, which sets.m.needs must name"));
  const std::string not_there = R"("m": {"files": {}, "needs": ["s"],
      "manifest": {"det": {"path": "../s/det/other.onnx"}, "rec": {"path": "../s/rec/rec.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet() + "," + not_there)).message(),
              HasSubstr("'../s/det/other.onnx' is not one of sets.s.files"));
  const std::string too_far = R"("m": {"files": {},
      "manifest": {"det": {"path": "../../x/det.onnx"}, "rec": {"path": "../x/rec.onnx"}}})";
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), too_far)).message(),
              HasSubstr("may reach only into a sibling set's folder"));
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet("s", R"(, "needs": ["zz"])"))).message(),
              HasSubstr("sets.s.needs names 'zz', which is not another set"));
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), PlainSet("s", R"(, "needs": ["s"])"))).message(),
              HasSubstr("which is not another set"));
  const std::string circle = PlainSet("a", R"(, "needs": ["b"])") + "," +
                             PlainSet("b", R"(, "needs": ["c"])") + "," +
                             PlainSet("c", R"(, "needs": ["a"])");
  EXPECT_THAT(ParseError(CatalogText(TwoFiles(), circle)).message(),
              HasSubstr("sets need each other in a circle: a -> b -> c -> a"));
}

TEST(CatalogTest, LoadsAFileAndSaysWhenItCannot) {
  const auto path = std::filesystem::path(::testing::TempDir()) /
                    ("catalog_test_" + std::to_string(getpid()) + ".json");
  {
    std::ofstream out(path);
    out << CatalogText(TwoFiles(), PlainSet());
  }
  const Result<Catalog> loaded = Catalog::Load(path);
  ASSERT_OK(loaded);
  EXPECT_EQ(loaded->where(), path.string());
  const Result<Catalog> missing = Catalog::Load(path.string() + ".missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ocr::catalog
