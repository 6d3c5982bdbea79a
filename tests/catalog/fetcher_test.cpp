#include "catalog/fetcher.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/test_paths.h"

namespace ocr::catalog {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class FetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("fetcher_test_" + std::to_string(getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "mirror" / "a");
    Write(dir_ / "mirror" / "a" / "file.bin", Content());
  }

  void TearDown() override { fs::remove_all(dir_); }

  static std::string Content() {
    std::string text;
    for (int i = 0; i < 200000; ++i)
      text.push_back(static_cast<char>('a' + i % 26));
    return text;
  }

  static void Write(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }

  fs::path dir_;
};

TEST(UrlTest, SplitsAtTheHost) {
  const Result<UrlParts> url = SplitUrl("HTTPS://huggingface.co/PaddlePaddle/x/inference.onnx?d=1");
  ASSERT_OK(url);
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->authority, "huggingface.co");
  EXPECT_EQ(url->path, "/PaddlePaddle/x/inference.onnx?d=1");
  const Result<UrlParts> file = SplitUrl("file:///srv/models/a.onnx");
  ASSERT_OK(file);
  EXPECT_EQ(file->authority, "");
  EXPECT_EQ(file->path, "/srv/models/a.onnx");
  EXPECT_FALSE(SplitUrl("huggingface.co/x").ok());
  EXPECT_FALSE(SplitUrl("ftp://host/x").ok());
  EXPECT_FALSE(SplitUrl("https:///x").ok());
  EXPECT_FALSE(SplitUrl("https://host").ok());
  EXPECT_FALSE(SplitUrl("https://host?x").ok());
}

TEST(MirrorTest, MapsTheUrlsPathOntoTheMirror) {
  constexpr const char* kUrl =
      "https://huggingface.co/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/2ba1/inference.onnx";
  const Result<Source> direct = MirroredSource(kUrl, "");
  ASSERT_OK(direct);
  EXPECT_EQ(direct->url, kUrl);
  // A folder: the path after the host, under it.
  const Result<Source> folder = MirroredSource(kUrl, "/srv/mirror");
  ASSERT_OK(folder);
  EXPECT_EQ(folder->url, "");
  EXPECT_EQ(folder->path,
            "/srv/mirror/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/2ba1/inference.onnx");
  const Result<Source> relative = MirroredSource(kUrl, "mirror/");
  ASSERT_OK(relative);
  EXPECT_EQ(relative->path.lexically_normal(),
            "mirror/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/2ba1/inference.onnx");
  // file:// and http(s)://: the same path after the base, one slash between.
  const Result<Source> file = MirroredSource(kUrl, "file:///srv/mirror/");
  ASSERT_OK(file);
  EXPECT_EQ(file->url,
            "file:///srv/mirror/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/2ba1/inference.onnx");
  const Result<Source> http = MirroredSource(kUrl, "http://127.0.0.1:8080/models");
  ASSERT_OK(http);
  EXPECT_EQ(http->url,
            "http://127.0.0.1:8080/models/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/2ba1/"
            "inference.onnx");
  const Result<Source> bare = MirroredSource(kUrl, "http://127.0.0.1:8080");
  ASSERT_OK(bare);
  EXPECT_EQ(
      bare->url,
      "http://127.0.0.1:8080/PaddlePaddle/PP-OCRv6_tiny_det_onnx/resolve/2ba1/inference.onnx");
  const Result<Source> https = MirroredSource(
      "https://raw.githubusercontent.com/PaddlePaddle/PaddleOCR/05eb/ppocr/utils/dict/d.txt",
      "HTTPS://mirror.example.com/");
  ASSERT_OK(https);
  EXPECT_EQ(https->url,
            "HTTPS://mirror.example.com/PaddlePaddle/PaddleOCR/05eb/ppocr/utils/dict/d.txt");
  // A folder reads the file the path names: escapes decoded, the query dropped.
  const Result<Source> escaped = MirroredSource("https://h/a%20b/c.onnx?download=true", "/m");
  ASSERT_OK(escaped);
  EXPECT_EQ(escaped->path, "/m/a b/c.onnx");
  EXPECT_EQ(escaped->Describe(), "/m/a b/c.onnx");
}

TEST(MirrorTest, RefusesMirrorsItCannotRead) {
  constexpr const char* kUrl = "https://h/a/b.onnx";
  EXPECT_THAT(MirroredSource(kUrl, "ftp://m/x").status().message(),
              HasSubstr("a mirror is a folder, a file:// URL or an http(s):// URL"));
  EXPECT_THAT(MirroredSource(kUrl, "file://server/share").status().message(),
              HasSubstr("a file:// mirror is a local folder"));
  EXPECT_THAT(MirroredSource("https://h/a/../../etc/passwd", "/m").status().message(),
              HasSubstr("'..' segment"));
  EXPECT_FALSE(MirroredSource("not a url", "/m").ok());
  EXPECT_FALSE(MirroredSource(kUrl, "http://").ok());
}

TEST_F(FetcherTest, CopiesFromAFolderAndResumesAPartialFile) {
  const Source source{"", dir_ / "mirror" / "a" / "file.bin"};
  const fs::path dest = dir_ / "out.bin";
  std::int64_t last_done = 0;
  std::int64_t last_total = 0;
  FetchOptions options;
  options.progress = [&](std::int64_t done, std::int64_t total) {
    last_done = done;
    last_total = total;
  };
  Result<FetchResult> fresh = Fetch(source, dest, options);
  ASSERT_OK(fresh);
  EXPECT_EQ(fresh->resumed_from, 0);
  EXPECT_EQ(fresh->bytes, 200000);
  EXPECT_EQ(last_done, 200000);
  EXPECT_EQ(last_total, 200000);
  EXPECT_EQ(testing::ReadFileOrDie(dest), Content());
  // A partial file continues from its length.
  Write(dest, Content().substr(0, 12345));
  Result<FetchResult> resumed = Fetch(source, dest, options);
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->resumed_from, 12345);
  EXPECT_EQ(testing::ReadFileOrDie(dest), Content());
  // One longer than the source is not a part of it: read again.
  Write(dest, Content() + "extra");
  Result<FetchResult> again = Fetch(source, dest, options);
  ASSERT_OK(again);
  EXPECT_EQ(again->resumed_from, 0);
  EXPECT_EQ(testing::ReadFileOrDie(dest), Content());
  const Result<FetchResult> missing = Fetch({"", dir_ / "mirror" / "nope"}, dest, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("nope"));
}

TEST_F(FetcherTest, ReadsFileUrlsThroughLibcurlAndResumes) {
  const Source source{"file://" + (dir_ / "mirror" / "a" / "file.bin").string(), {}};
  const fs::path dest = dir_ / "out.bin";
  ASSERT_OK(Fetch(source, dest, {}));
  EXPECT_EQ(testing::ReadFileOrDie(dest), Content());
  Write(dest, Content().substr(0, 100000));
  const Result<FetchResult> resumed = Fetch(source, dest, {});
  ASSERT_OK(resumed);
  EXPECT_EQ(resumed->resumed_from, 100000);
  EXPECT_EQ(resumed->bytes, 200000);
  EXPECT_EQ(testing::ReadFileOrDie(dest), Content());
  // Complete already: nothing more comes, nothing fails.
  const Result<FetchResult> complete = Fetch(source, dest, {});
  ASSERT_OK(complete);
  EXPECT_EQ(complete->bytes, 200000);
  const Result<FetchResult> missing =
      Fetch({"file://" + (dir_ / "mirror" / "nope").string(), {}}, dir_ / "x", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST_F(FetcherTest, StopsASourceLongerThanTheCatalogSays) {
  FetchOptions options;
  options.max_bytes = 1000;
  for (const Source& source :
       {Source{"", dir_ / "mirror" / "a" / "file.bin"},
        Source{"file://" + (dir_ / "mirror" / "a" / "file.bin").string(), {}}}) {
    const fs::path dest = dir_ / "out.bin";
    fs::remove(dest);
    const Result<FetchResult> got = Fetch(source, dest, options);
    ASSERT_FALSE(got.ok()) << source.Describe();
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("more than the 1,000 bytes"));
    EXPECT_LE(fs::file_size(dest), 1000U);
  }
}

// /dev/full fails every write with ENOSPC: what a full disk does to a download.
TEST_F(FetcherTest, AFullDiskIsResourceExhausted) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full on this system";
  for (const Source& source :
       {Source{"", dir_ / "mirror" / "a" / "file.bin"},
        Source{"file://" + (dir_ / "mirror" / "a" / "file.bin").string(), {}}}) {
    const Result<FetchResult> got = Fetch(source, "/dev/full", {});
    ASSERT_FALSE(got.ok()) << source.Describe();
    EXPECT_EQ(got.status().code(), StatusCode::kResourceExhausted) << got.status().message();
    EXPECT_THAT(got.status().message(), HasSubstr("No space left on device"));
    EXPECT_THAT(got.status().message(), HasSubstr("the disk is full"));
  }
}

TEST_F(FetcherTest, AnUnreachableHostIsUnavailable) {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  FetchOptions options;
  options.connect_timeout_s = 5;
  const Result<FetchResult> got = Fetch({"http://127.0.0.1:1/a/file.bin", {}}, dir_ / "x", options);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("cannot be reached"));
}

}  // namespace
}  // namespace ocr::catalog
