#include "catalog/installer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/sha256.h"
#include "common/text.h"
#include "support/test_paths.h"

namespace ocr::catalog {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string Sha(const std::string& text) {
  return Sha256Hex(AsBytes(text));
}

// A models folder and a mirror folder of small files standing for a set's models: the installer
// reads them as it reads the publisher's.
class InstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("installer_test_" + std::to_string(getpid()) + "_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    Write(Mirror("det-1.onnx"), det_);
    Write(Mirror("rec-1.onnx"), rec_);
    Write(Mirror("dict.txt"), dict_);
    options_.dir = root_ / "models";
    options_.mirror = (root_ / "mirror").string();
    options_.say = [this](const std::string& line) { said_ += line + "\n"; };
  }

  void TearDown() override { fs::remove_all(root_); }

  fs::path Mirror(const std::string& name) const { return root_ / "mirror" / "pub" / name; }

  static std::string FileJson(const std::string& name, const std::string& content,
                              const std::string& sha) {
    return "{\"url\": \"https://publisher.example/pub/" + name +
           "\", \"bytes\": " + std::to_string(content.size()) + ", \"sha256\": \"" + sha + "\"}";
  }

  // The catalog: set "s" (det, rec, a dictionary checked by sha256 or by `dict_lines`), the
  // optional classifier ../ppocrv4/cls/cls.onnx, and "mixed", which needs s.
  Catalog MakeCatalog(const std::string& det_sha = "", int dict_lines = -1,
                      const std::string& det_name = "det-1.onnx") const {
    const std::string dict =
        dict_lines >= 0 ? "{\"url\": \"https://publisher.example/pub/dict.txt\", \"lines\": " +
                              std::to_string(dict_lines) + "}"
                        : FileJson("dict.txt", dict_, Sha(dict_));
    const std::string text = R"({"catalog_version": 1, "files": {"det": )" +
                             FileJson(det_name, det_, det_sha.empty() ? Sha(det_) : det_sha) +
                             R"(, "rec": )" + FileJson("rec-1.onnx", rec_, Sha(rec_)) +
                             R"(, "dict": )" + dict +
                             R"(}, "sets": {
        "s": {"files": {"det/det.onnx": "det", "rec/rec.onnx": "rec", "d.txt": "dict"},
              "manifest": {"family": "ppocrv6", "det": {"path": "det/det.onnx"},
                           "rec": {"path": "rec/rec.onnx", "dictionary": "d.txt"},
                           "cls": {"path": "../ppocrv4/cls/cls.onnx", "family": "ppocrv4"}},
              "optional_parts": ["cls"]},
        "mixed": {"files": {}, "needs": ["s"],
              "manifest": {"family": "ppocrv6", "det": {"path": "../s/det/det.onnx"},
                           "rec": {"path": "../ext/rec.onnx", "family": "ppocrv4",
                                   "dictionary": "../ext/keys.txt"}}}}})";
    Result<Catalog> catalog = Catalog::Parse(text, "test catalog");
    EXPECT_OK(catalog);
    return std::move(*catalog);
  }

  fs::path root_;
  std::string det_ = std::string(5000, 'd') + "det";
  std::string rec_ = std::string(7000, 'r') + "rec";
  std::string dict_ = "a\nb\nc\n";
  PullOptions options_;
  std::string said_;
};

TEST_F(InstallerTest, PullInstallsTheSetWithItsManifestThenItIsUpToDate) {
  const Catalog catalog = MakeCatalog();
  const Result<PullOutcome> pulled = Pull(catalog, "s", options_);
  ASSERT_OK(pulled);
  EXPECT_EQ(*pulled, PullOutcome::kInstalled);
  const fs::path set = options_.dir / "s";
  EXPECT_EQ(testing::ReadFileOrDie(set / "det" / "det.onnx"), det_);
  EXPECT_EQ(testing::ReadFileOrDie(set / "rec" / "rec.onnx"), rec_);
  EXPECT_EQ(testing::ReadFileOrDie(set / "d.txt"), dict_);
  EXPECT_FALSE(fs::exists(options_.dir / ".s.partial"));
  const Result<std::optional<pipeline::ModelManifest>> manifest = pipeline::ReadManifest(set);
  ASSERT_OK(manifest);
  ASSERT_TRUE(manifest->has_value());
  const pipeline::ModelManifest& m = **manifest;
  ASSERT_TRUE(m.family.has_value());
  EXPECT_EQ(*m.family, pipeline::ModelFamily::kPpocrV6);
  ASSERT_TRUE(m.det && m.rec);
  EXPECT_EQ(m.det->path, "det/det.onnx");
  EXPECT_EQ(m.rec->dictionary, "d.txt");
  EXPECT_FALSE(m.cls.has_value()) << "no ../ppocrv4/cls/cls.onnx: no classifier";
  ASSERT_EQ(m.files.size(), 3U);
  const pipeline::ManifestFile& det = m.files.at("det/det.onnx");
  EXPECT_EQ(det.bytes, static_cast<std::int64_t>(det_.size()));
  EXPECT_EQ(det.sha256, Sha(det_));
  EXPECT_EQ(det.url,
            "https://publisher.example/pub/det-1.onnx");  // the publisher's, not the mirror's
  EXPECT_THAT(said_, HasSubstr("s: det/det.onnx 5,003 B, sha256 "));
  EXPECT_THAT(said_, HasSubstr("s: installed in "));
  EXPECT_EQ(StateOf(catalog, *catalog.FindSet("s"), options_.dir), SetState::kInstalled);

  const Result<Verification> verified = VerifySet(set);
  ASSERT_OK(verified);
  EXPECT_TRUE(verified->ok());
  EXPECT_EQ(verified->files.size(), 3U);

  // The mirror's files are gone: an installed set that verifies needs none of them.
  fs::remove_all(root_ / "mirror");
  const Result<PullOutcome> again = Pull(catalog, "s", options_);
  ASSERT_OK(again);
  EXPECT_EQ(*again, PullOutcome::kUpToDate);
  EXPECT_THAT(said_, HasSubstr("s: up to date in "));
}

TEST_F(InstallerTest, TheOptionalClassifierIsWrittenOnlyWhenItIsThere) {
  Write(options_.dir / "ppocrv4" / "cls" / "cls.onnx", "cls");
  ASSERT_OK(Pull(MakeCatalog(), "s", options_));
  const auto manifest = pipeline::ReadManifest(options_.dir / "s");
  ASSERT_OK(manifest);
  ASSERT_TRUE((*manifest)->cls.has_value());
  EXPECT_EQ((*manifest)->cls->path, "../ppocrv4/cls/cls.onnx");
  ASSERT_TRUE((*manifest)->cls->family.has_value());
  EXPECT_EQ(*(*manifest)->cls->family, pipeline::ModelFamily::kPpocrV4);
  EXPECT_FALSE((*manifest)->files.contains("../ppocrv4/cls/cls.onnx"));
  // verify: a part outside the files record must be there.
  const Result<Verification> verified = VerifySet(options_.dir / "s");
  ASSERT_OK(verified);
  EXPECT_TRUE(verified->ok());
  fs::remove(options_.dir / "ppocrv4" / "cls" / "cls.onnx");
  const Result<Verification> without = VerifySet(options_.dir / "s");
  ASSERT_OK(without);
  EXPECT_FALSE(without->ok());
  EXPECT_EQ(without->files.back().problem, "missing (the manifest's cls part)");
}

TEST_F(InstallerTest, AWrongChecksumInstallsNothing) {
  const std::string wrong(64, '0');
  const Result<PullOutcome> pulled = Pull(MakeCatalog(wrong), "s", options_);
  ASSERT_FALSE(pulled.ok());
  EXPECT_EQ(pulled.status().code(), StatusCode::kModelLoadFailed);
  const std::string message = pulled.status().message();
  EXPECT_THAT(message, HasSubstr("checksum mismatch for det/det.onnx"));
  EXPECT_THAT(message, HasSubstr("the catalog pins sha256 " + wrong));
  EXPECT_THAT(message, HasSubstr("the file downloaded has " + Sha(det_)));
  EXPECT_THAT(message, HasSubstr("nothing was installed"));
  EXPECT_FALSE(fs::exists(options_.dir / "s"));
  EXPECT_FALSE(fs::exists(options_.dir / ".s.partial" / "det" / "det.onnx"));
}

TEST_F(InstallerTest, AFileOfAnotherSizeInstallsNothing) {
  // Shorter than the catalog says: kept, as a download cut short is, for the next pull to resume.
  Write(Mirror("det-1.onnx"), det_.substr(0, 4000));
  const Result<PullOutcome> short_file = Pull(MakeCatalog(), "s", options_);
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(short_file.status().message(),
              HasSubstr("det/det.onnx (https://publisher.example/pub/det-1.onnx) has 4,000 bytes, "
                        "the catalog says 5,003"));
  EXPECT_THAT(short_file.status().message(), HasSubstr("nothing was installed"));
  EXPECT_FALSE(fs::exists(options_.dir / "s"));
  EXPECT_EQ(fs::file_size(options_.dir / ".s.partial" / "det" / "det.onnx"), 4000U);
  // Longer: cut off at the catalog's size and removed, a wrong size (not a usage error).
  Write(Mirror("det-1.onnx"), det_ + "and more");
  const Result<PullOutcome> long_file = Pull(MakeCatalog(), "s", options_);
  ASSERT_FALSE(long_file.ok());
  EXPECT_EQ(long_file.status().code(), StatusCode::kModelLoadFailed);
  EXPECT_THAT(long_file.status().message(), HasSubstr("sends more than the 5,003 bytes"));
  EXPECT_FALSE(fs::exists(options_.dir / "s"));
  EXPECT_FALSE(fs::exists(options_.dir / ".s.partial" / "det" / "det.onnx"));
}

TEST_F(InstallerTest, ADictionaryWithoutADigestIsCheckedByItsLineCount) {
  ASSERT_OK(Pull(MakeCatalog("", 3), "s", options_));
  const auto manifest = pipeline::ReadManifest(options_.dir / "s");
  ASSERT_OK(manifest);
  // The digest it got is recorded, so verify checks it from now on.
  EXPECT_EQ((*manifest)->files.at("d.txt").sha256, Sha(dict_));
  EXPECT_EQ((*manifest)->files.at("d.txt").bytes, 6);
  EXPECT_THAT(said_, HasSubstr("3 lines (dictionary checked by its line count"));

  fs::remove_all(options_.dir);
  const Result<PullOutcome> wrong = Pull(MakeCatalog("", 4), "s", options_);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("d.txt (https://publisher.example/pub/dict.txt) "
                                                  "has 3 lines, the catalog expects 4"));
  EXPECT_FALSE(fs::exists(options_.dir / "s"));
}

TEST_F(InstallerTest, ANewRevisionReplacesTheInstalledSetWhole) {
  ASSERT_OK(Pull(MakeCatalog(), "s", options_));
  det_ = "the next revision";
  Write(Mirror("det-2.onnx"), det_);
  const Catalog next = MakeCatalog("", -1, "det-2.onnx");
  EXPECT_EQ(StateOf(next, *next.FindSet("s"), options_.dir), SetState::kDiffers);
  const Result<PullOutcome> pulled = Pull(next, "s", options_);
  ASSERT_OK(pulled);
  EXPECT_EQ(*pulled, PullOutcome::kReplaced);
  EXPECT_EQ(testing::ReadFileOrDie(options_.dir / "s" / "det" / "det.onnx"), det_);
  EXPECT_EQ(StateOf(next, *next.FindSet("s"), options_.dir), SetState::kInstalled);
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(options_.dir))
    entries.push_back(entry.path().filename().string());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{".s.lock", "s"}));  // no staging, no old set left
}

TEST_F(InstallerTest, AStaleResumedFileIsFetchedAgainFromItsStart) {
  // An earlier pull left a file of another revision, as long as this one, in the staging folder.
  Write(options_.dir / ".s.partial" / "det" / "det.onnx", std::string(det_.size(), 'x'));
  ASSERT_OK(Pull(MakeCatalog(), "s", options_));
  EXPECT_EQ(testing::ReadFileOrDie(options_.dir / "s" / "det" / "det.onnx"), det_);
  EXPECT_THAT(said_, HasSubstr("failed its check after resuming; fetching it again"));
}

TEST_F(InstallerTest, AFolderThatPullDidNotInstallIsLeftAlone) {
  Write(options_.dir / "s" / "det" / "det.onnx", "mine");
  const Catalog catalog = MakeCatalog();
  EXPECT_EQ(StateOf(catalog, *catalog.FindSet("s"), options_.dir), SetState::kNotPulled);
  const Result<PullOutcome> pulled = Pull(catalog, "s", options_);
  ASSERT_FALSE(pulled.ok());
  EXPECT_THAT(pulled.status().message(), HasSubstr("was not installed by `onnxocr models pull`"));
  EXPECT_EQ(testing::ReadFileOrDie(options_.dir / "s" / "det" / "det.onnx"), "mine");
}

TEST_F(InstallerTest, NeedsComeFirstAndPartsOutsideTheCatalogMustBeThere) {
  const Catalog catalog = MakeCatalog();
  const Result<PullOutcome> without = Pull(catalog, "mixed", options_);
  ASSERT_FALSE(without.ok());
  EXPECT_EQ(without.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(without.status().message(), HasSubstr("its rec part is ../ext/rec.onnx"));
  EXPECT_THAT(without.status().message(), HasSubstr("nothing was installed"));
  EXPECT_TRUE(fs::exists(options_.dir / "s" / "manifest.json"));  // the set it needs came first
  EXPECT_FALSE(fs::exists(options_.dir / "mixed"));

  Write(options_.dir / "ext" / "rec.onnx", "rec");
  Write(options_.dir / "ext" / "keys.txt", "k\n");
  const Result<PullOutcome> pulled = Pull(catalog, "mixed", options_);
  ASSERT_OK(pulled);
  EXPECT_EQ(*pulled, PullOutcome::kInstalled);
  const auto manifest = pipeline::ReadManifest(options_.dir / "mixed");
  ASSERT_OK(manifest);
  EXPECT_TRUE((*manifest)->files.empty());  // it downloaded nothing
  EXPECT_EQ((*manifest)->rec->dictionary, "../ext/keys.txt");
  const Result<Verification> verified = VerifySet(options_.dir / "mixed");
  ASSERT_OK(verified);
  EXPECT_TRUE(verified->ok());
  EXPECT_EQ(verified->files.size(), 3U);  // det, rec and its dictionary: present
  EXPECT_EQ(*Pull(catalog, "mixed", options_), PullOutcome::kUpToDate);
}

TEST_F(InstallerTest, AnUnknownSetListsTheKnownOnes) {
  const Result<PullOutcome> pulled = Pull(MakeCatalog(), "nope", options_);
  ASSERT_FALSE(pulled.ok());
  EXPECT_EQ(pulled.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(pulled.status().message(),
              HasSubstr("no set 'nope' in test catalog; it has mixed or s"));
}

TEST_F(InstallerTest, VerifyNamesAChangedAndAMissingFile) {
  ASSERT_OK(Pull(MakeCatalog(), "s", options_));
  const fs::path set = options_.dir / "s";
  {
    std::fstream file(set / "rec" / "rec.onnx", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(100);
    file.put('X');
  }
  fs::remove(set / "d.txt");
  const Result<Verification> verified = VerifySet(set);
  ASSERT_OK(verified);
  EXPECT_FALSE(verified->ok());
  std::vector<std::string> problems;
  for (const FileCheck& file : verified->files) {
    if (!file.problem.empty())
      problems.push_back(file.path + ": " + file.problem);
  }
  ASSERT_EQ(problems.size(), 2U);
  EXPECT_EQ(problems[0], "d.txt: missing");
  EXPECT_THAT(problems[1], HasSubstr("rec/rec.onnx: sha256 "));
  EXPECT_THAT(problems[1], HasSubstr("the manifest records " + Sha(rec_)));
  const Result<Verification> none = VerifySet(root_ / "nothing");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

TEST(CountLinesTest, CountsAsTheDictionaryReaderDoes) {
  const fs::path path =
      fs::path(::testing::TempDir()) / ("count_lines_test_" + std::to_string(getpid()) + ".txt");
  for (const auto& [text, lines] : std::vector<std::pair<std::string, std::int64_t>>{
           {"", 0}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"a\nb\n", 2}, {"\n\n", 2}}) {
    Write(path, text);
    const Result<std::int64_t> counted = CountLines(path);
    ASSERT_OK(counted);
    EXPECT_EQ(*counted, lines) << "'" << text << "'";
  }
  fs::remove(path);
}

}  // namespace
}  // namespace ocr::catalog
