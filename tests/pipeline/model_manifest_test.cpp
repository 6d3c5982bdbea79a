#include "pipeline/model_manifest.h"

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace ocr::pipeline {
namespace {

constexpr std::string_view kMixed = R"({"family": "ppocrv6",
 "det": {"path": "det/det.onnx"},
 "rec": {"path": "../ppocrv4-int8/rec/rec.onnx", "family": "ppocrv4",
         "dictionary": "../ppocrv4-int8/ppocr_keys_v1.txt"},
 "cls": {"path": "../ppocrv4-int8/cls/cls.onnx"},
 "files": {"det/det.onnx": {"bytes": 12, "sha256": "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8",
                            "url": "https://example.org/PaddlePaddle/x/inference.onnx"}},
 "made_by": "scripts/quantize-models", "recipe": 3})";

TEST(ModelManifestTest, ReadsPartsFamiliesAndFiles) {
  const Result<ModelManifest> m = ParseManifest(kMixed, "manifest.json");
  ASSERT_OK(m);
  EXPECT_EQ(m->family, ModelFamily::kPpocrV6);
  ASSERT_TRUE(m->det && m->rec && m->cls);
  EXPECT_FALSE(m->rec_second);
  EXPECT_EQ(m->det->path, "det/det.onnx");
  EXPECT_EQ(m->det->family, std::nullopt);
  EXPECT_EQ(m->rec->family, ModelFamily::kPpocrV4);
  EXPECT_EQ(m->rec->dictionary, "../ppocrv4-int8/ppocr_keys_v1.txt");
  ASSERT_EQ(m->files.count("det/det.onnx"), 1u);
  EXPECT_EQ(m->files.at("det/det.onnx").bytes, 12);
  EXPECT_EQ(m->files.at("det/det.onnx").url, "https://example.org/PaddlePaddle/x/inference.onnx");
  EXPECT_EQ(m->extra_json, R"({"made_by":"scripts/quantize-models","recipe":3})");
}

TEST(ModelManifestTest, WritesWhatItReads) {
  const Result<ModelManifest> m = ParseManifest(kMixed, "manifest.json");
  ASSERT_OK(m);
  const std::string text = ManifestJson(*m);
  EXPECT_EQ(text.rfind("{\n \"family\": \"ppocrv6\",\n \"det\"", 0), 0u) << text;
  const Result<ModelManifest> again = ParseManifest(text, "again");
  ASSERT_OK(again);
  EXPECT_EQ(ManifestJson(*again), text);
  EXPECT_EQ(again->extra_json, m->extra_json);
}

TEST(ModelManifestTest, AQuantizersRecordAloneHasNoParts) {
  const Result<ModelManifest> m = ParseManifest(R"({"made_by": "x", "models": {}})", "m");
  ASSERT_OK(m);
  EXPECT_FALSE(m->family || m->det || m->rec || m->cls);
}

TEST(ModelManifestTest, RefusesWhatItCannotReadNamingTheKey) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"[]", "not a JSON object"},
      {"{", "not a JSON object"},
      {R"({"family": "ppocrv9"})", "family is \"ppocrv9\", expected ppocrv3, ppocrv4"},
      {R"({"det": {"file": "det.onnx"}})", "det must be an object with a \"path\""},
      {R"({"rec": {"path": "/abs/rec.onnx"}})", "rec.path is /abs/rec.onnx: paths are relative"},
      {R"({"rec": {"path": "r.onnx", "family": 4}})", "rec.family is 4"},
      {R"({"det": {"path": "d.onnx", "dictionary": "k.txt"}})", "det takes no dictionary"},
      {R"({"files": {"a": {"sha256": "ABC"}}})", "files.a.sha256 must be 64 lower-case hex"},
      {R"({"files": {"a": {"bytes": -1}}})", "files.a.bytes must be a whole number"},
  };
  for (const auto& [text, message] : cases) {
    const Result<ModelManifest> m = ParseManifest(text, "set/manifest.json");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.status().code(), StatusCode::kModelLoadFailed);
    EXPECT_NE(m.status().message().find("set/manifest.json: "), std::string::npos);
    EXPECT_NE(m.status().message().find(message), std::string::npos) << m.status().message();
  }
}

}  // namespace
}  // namespace ocr::pipeline
