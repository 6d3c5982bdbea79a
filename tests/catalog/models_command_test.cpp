// `onnxocr models` as a user runs it: the real binary pulls a set from a mirror on 127.0.0.1 (a
// catalog written here whose files are ../shared/models/ppocrv6-tiny's, at their true sizes and
// sha256 of its SOURCE.md), verifies it, refuses what does not match, resumes what was cut short,
// and the set it installed reads an image with `onnxocr run`.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pipeline/model_manifest.h"
#include "support/test_paths.h"

namespace ocr::catalog {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// ../shared/models/ppocrv6-tiny/SOURCE.md: the copies' sizes and digests.
constexpr std::int64_t kDetBytes = 1829618;
constexpr const char* kDetSha = "b88860aa6ca065ebe177001f14fe1550c356596d306c4989b2074c0e249e2a02";
constexpr std::int64_t kRecBytes = 2253959;
constexpr const char* kRecSha = "4831ab3e84fc176b8a0839da81076a550301a7468f3c3eb3e9b3cdb8e8721cad";
constexpr std::int64_t kDictBytes = 27156;
constexpr const char* kDictSha = "c5cbe34ef40c29c4df07ed012bf96569cb69a2d2a01a07027e9f13cb832bd9cd";
constexpr const char* kPublisher = "https://publisher.example/pub/ppocrv6-tiny/";

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `onnxocr ARGS` with stdout and stderr captured and `env` ("NAME=VALUE") added.
Outcome RunOnnxocr(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "/models_cli_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++);
  const std::string out_path = base + ".out";
  const std::string err_path = base + ".err";
  const pid_t pid = fork();
  if (pid == 0) {
    if (freopen(out_path.c_str(), "w", stdout) == nullptr ||
        freopen(err_path.c_str(), "w", stderr) == nullptr ||
        freopen("/dev/null", "r", stdin) == nullptr) {
      _exit(126);
    }
    std::string binary = OCR_ONNXOCR_BINARY;
    std::vector<std::string> copy = args;
    std::vector<char*> argv = {binary.data()};
    for (auto& a : copy)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    unsetenv("ONNXOCR_MODELS");
    unsetenv("ONNXOCR_MODELS_MIRROR");
    unsetenv("ONNXOCR_MODELS_CATALOG");
    unsetenv("ONNXOCR_MODELS_DIR");
    std::vector<std::string> settings = env;
    for (std::string& setting : settings)
      putenv(setting.data());
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = testing::ReadFileOrDie(out_path);
  o.err = testing::ReadFileOrDie(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return o;
}

// tests/catalog/mirror_server.py over `root`, on an ephemeral loopback port; stopped by its PID.
class MirrorServer {
 public:
  MirrorServer(const fs::path& root, const fs::path& log, std::vector<std::string> extra = {})
      : log_(log) {
    int fds[2];
    if (pipe(fds) != 0)
      return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      std::vector<std::string> args = {OCR_PYTHON3, OCR_MIRROR_SERVER, root.string(), log.string()};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    // "PORT 12345\n", within 20 s.
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0)
        continue;
      char buffer[64];
      const ssize_t n = read(fds[0], buffer, sizeof(buffer));
      if (n <= 0)
        break;
      line.append(buffer, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    if (line.starts_with("PORT "))
      port_ = std::stoi(line.substr(5));
  }

  ~MirrorServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }

  MirrorServer(const MirrorServer&) = delete;
  MirrorServer& operator=(const MirrorServer&) = delete;

  bool started() const { return port_ > 0; }

  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The requests so far, one a line: "GET /path range=bytes=N-" or "range=-".
  std::string Requests() const {
    std::error_code ec;
    return fs::exists(log_, ec) ? testing::ReadFileOrDie(log_) : std::string();
  }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

class ModelsCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OCR_SHARED_V6_TINY_OR_SKIP(tiny);
    root_ = fs::path(::testing::TempDir()) /
            ("models_command_test_" + std::to_string(getpid()) + "_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    // The mirror holds the shared files at the path the catalog's URLs have after the host.
    fs::create_directories(root_ / "mirror" / "pub");
    fs::create_directory_symlink(tiny, root_ / "mirror" / "pub" / "ppocrv6-tiny");
    models_ = root_ / "models";
    catalog_ = root_ / "catalog.json";
    WriteCatalog();
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  void WriteCatalog() const {
    const auto file = [](const std::string& path, std::int64_t bytes, const std::string& sha) {
      return nlohmann::json{{"url", kPublisher + path}, {"bytes", bytes}, {"sha256", sha}};
    };
    const nlohmann::json manifest = {
        {"family", "ppocrv6"},
        {"det", {{"path", "det/det.onnx"}}},
        {"rec", {{"path", "rec/rec.onnx"}, {"dictionary", "ppocrv6_tiny_dict.txt"}}},
        {"cls", {{"path", "../ppocrv4/cls/cls.onnx"}, {"family", "ppocrv4"}}}};
    const auto set = [&](const std::string& det, const std::string& dict) {
      return nlohmann::json{
          {"files",
           {{"det/det.onnx", det}, {"rec/rec.onnx", "tiny-rec"}, {"ppocrv6_tiny_dict.txt", dict}}},
          {"manifest", manifest},
          {"optional_parts", {"cls"}}};
    };
    nlohmann::json catalog = {
        {"catalog_version", 1},
        {"files",
         {{"tiny-det", file("det/det.onnx", kDetBytes, kDetSha)},
          {"tiny-rec", file("rec/rec.onnx", kRecBytes, kRecSha)},
          {"tiny-dict", file("ppocrv6_tiny_dict.txt", kDictBytes, kDictSha)},
          {"tiny-dict-by-lines",
           {{"url", std::string(kPublisher) + "ppocrv6_tiny_dict.txt"}, {"lines", 6904}}},
          // The detector's bytes, pinned at another file's digest.
          {"bad-det", file("det/det.onnx", kDetBytes, kDictSha)},
          {"gone", file("det/not-there.onnx", kDetBytes, kDetSha)}}},
        {"sets",
         {{"ppocrv6-tiny", set("tiny-det", "tiny-dict")},
          {"tiny-by-lines", set("tiny-det", "tiny-dict-by-lines")},
          {"bad-sha", set("bad-det", "tiny-dict")},
          {"gone", set("gone", "tiny-dict")},
          {"mixed",
           {{"files", nlohmann::json::object()},
            {"needs", {"ppocrv6-tiny"}},
            {"manifest",
             {{"family", "ppocrv6"},
              {"det", {{"path", "../ppocrv6-tiny/det/det.onnx"}}},
              {"rec",
               {{"path", "../ppocrv4/rec/rec.onnx"},
                {"family", "ppocrv4"},
                {"dictionary", "../ppocrv4/ppocr_keys_v1.txt"}}},
              {"cls", {{"path", "../ppocrv4/cls/cls.onnx"}, {"family", "ppocrv4"}}}}}}}}}};
    std::ofstream(catalog_) << catalog.dump(1);
  }

  Outcome Pull(const std::string& name, const std::string& mirror,
               const std::vector<std::string>& env = {}) const {
    std::vector<std::string> args = {"models",    "pull",           name, "--dir", models_.string(),
                                     "--catalog", catalog_.string()};
    if (!mirror.empty()) {
      args.emplace_back("--mirror");
      args.push_back(mirror);
    }
    return RunOnnxocr(args, env);
  }

  Outcome Verify(const std::string& name) const {
    return RunOnnxocr({"models", "verify", (models_ / name).string()});
  }

  // models_/ppocrv4 -> the default set, for the classifier a v6 tiny set borrows.
  bool LinkDefaultSet() const {
    if (!fs::is_regular_file(testing::DefaultModelDir() / "cls" / "cls.onnx"))
      return false;
    fs::create_directories(models_);
    fs::create_directory_symlink(testing::DefaultModelDir(), models_ / "ppocrv4");
    return true;
  }

  fs::path root_;
  fs::path models_;
  fs::path catalog_;
};

TEST_F(ModelsCommandTest, PullInstallsVerifiesAndIsThenUpToDate) {
  MirrorServer server(root_ / "mirror", root_ / "requests.log");
  ASSERT_TRUE(server.started());
  const Outcome pulled = Pull("ppocrv6-tiny", server.base());
  ASSERT_EQ(pulled.exit_code, 0) << pulled.out << pulled.err;
  EXPECT_THAT(pulled.out, HasSubstr("ppocrv6-tiny: det/det.onnx 1,829,618 B, sha256 b88860aa6ca0"));
  EXPECT_THAT(pulled.out,
              HasSubstr("ppocrv6-tiny: installed in " + (models_ / "ppocrv6-tiny").string()));
  const fs::path set = models_ / "ppocrv6-tiny";
  EXPECT_EQ(fs::file_size(set / "det" / "det.onnx"), static_cast<std::uintmax_t>(kDetBytes));
  EXPECT_EQ(fs::file_size(set / "rec" / "rec.onnx"), static_cast<std::uintmax_t>(kRecBytes));
  EXPECT_EQ(fs::file_size(set / "ppocrv6_tiny_dict.txt"), static_cast<std::uintmax_t>(kDictBytes));
  EXPECT_FALSE(fs::exists(models_ / ".ppocrv6-tiny.partial"));

  const Result<std::optional<pipeline::ModelManifest>> manifest = pipeline::ReadManifest(set);
  ASSERT_OK(manifest);
  ASSERT_TRUE(manifest->has_value());
  const pipeline::ModelManifest& m = **manifest;
  EXPECT_EQ(m.family, pipeline::ModelFamily::kPpocrV6);
  ASSERT_TRUE(m.det && m.rec);
  EXPECT_EQ(m.det->path, "det/det.onnx");
  EXPECT_EQ(m.rec->path, "rec/rec.onnx");
  EXPECT_EQ(m.rec->dictionary, "ppocrv6_tiny_dict.txt");
  EXPECT_FALSE(m.cls) << "no ../ppocrv4 beside it: no classifier";
  ASSERT_EQ(m.files.size(), 3U);
  EXPECT_EQ(m.files.at("rec/rec.onnx").bytes, kRecBytes);
  EXPECT_EQ(m.files.at("rec/rec.onnx").sha256, kRecSha);
  EXPECT_EQ(m.files.at("rec/rec.onnx").url, std::string(kPublisher) + "rec/rec.onnx");
  const std::string requests = server.Requests();
  EXPECT_THAT(requests, HasSubstr("GET /pub/ppocrv6-tiny/det/det.onnx range=-\n"));
  EXPECT_THAT(requests, HasSubstr("GET /pub/ppocrv6-tiny/rec/rec.onnx range=-\n"));
  EXPECT_THAT(requests, HasSubstr("GET /pub/ppocrv6-tiny/ppocrv6_tiny_dict.txt range=-\n"));

  const Outcome verified = Verify("ppocrv6-tiny");
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_THAT(verified.out,
              HasSubstr("ok   det/det.onnx  1,829,618 B  sha256 " + std::string(kDetSha)));
  EXPECT_THAT(verified.out, HasSubstr("3 files match its manifest.json"));

  const Outcome again = Pull("ppocrv6-tiny", server.base());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("ppocrv6-tiny: up to date"));
  EXPECT_EQ(server.Requests(), requests) << "an installed set that verifies is not fetched again";

  const Outcome listed = RunOnnxocr(
      {"models", "list", "--json", "--dir", models_.string(), "--catalog", catalog_.string()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json list = nlohmann::json::parse(listed.out);
  EXPECT_EQ(list["dir"], models_.string());
  bool seen = false;
  for (const auto& entry : list["sets"]) {
    if (entry["name"] == "ppocrv6-tiny") {
      seen = true;
      EXPECT_EQ(entry["installed"], true);
      EXPECT_EQ(entry["files"].size(), 3U);
    } else {
      EXPECT_EQ(entry["installed"], false) << entry["name"];
    }
  }
  EXPECT_TRUE(seen);
}

TEST_F(ModelsCommandTest, AFileWhoseSha256IsNotTheCatalogsIsRefused) {
  MirrorServer server(root_ / "mirror", root_ / "requests.log");
  ASSERT_TRUE(server.started());
  const Outcome pulled = Pull("bad-sha", server.base());
  EXPECT_EQ(pulled.exit_code, 5);
  EXPECT_THAT(pulled.err, HasSubstr("checksum mismatch for det/det.onnx"));
  EXPECT_THAT(pulled.err, HasSubstr("the catalog pins sha256 " + std::string(kDictSha)));
  EXPECT_THAT(pulled.err, HasSubstr("the file downloaded has " + std::string(kDetSha)));
  EXPECT_THAT(pulled.err, HasSubstr("nothing was installed"));
  EXPECT_FALSE(fs::exists(models_ / "bad-sha"));
  EXPECT_FALSE(fs::exists(models_ / ".bad-sha.partial" / "det" / "det.onnx"));
}

TEST_F(ModelsCommandTest, ATruncatedDownloadFailsThenTheNextPullResumesIt) {
  MirrorServer server(root_ / "mirror", root_ / "requests.log",
                      {"--truncate-once", "/pub/ppocrv6-tiny/rec/rec.onnx"});
  ASSERT_TRUE(server.started());
  const Outcome cut = Pull("ppocrv6-tiny", server.base());
  EXPECT_EQ(cut.exit_code, 5);
  EXPECT_THAT(cut.err, HasSubstr("rec/rec.onnx"));
  EXPECT_THAT(cut.err, HasSubstr("the connection closed after 1,126,979 of 2,253,959 bytes"));
  EXPECT_THAT(cut.err, HasSubstr("nothing was installed"));
  EXPECT_FALSE(fs::exists(models_ / "ppocrv6-tiny"));
  const fs::path partial = models_ / ".ppocrv6-tiny.partial" / "rec" / "rec.onnx";
  ASSERT_TRUE(fs::exists(partial));
  EXPECT_EQ(fs::file_size(partial), 1126979U);

  const Outcome resumed = Pull("ppocrv6-tiny", server.base());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("rec/rec.onnx 2,253,959 B, sha256 4831ab3e84fc... ok "
                                     "(resumed at 1,126,979 B)"));
  const std::string requests = server.Requests();
  EXPECT_THAT(requests, HasSubstr("GET /pub/ppocrv6-tiny/rec/rec.onnx range=bytes=1126979-\n"));
  // The files the first pull completed were not fetched again.
  EXPECT_EQ(requests.find("det/det.onnx"), requests.rfind("det/det.onnx"));
  EXPECT_EQ(Verify("ppocrv6-tiny").exit_code, 0);
}

TEST_F(ModelsCommandTest, AnUnreachableMirrorOrAMissingFileExits5) {
  // Port 1 on loopback: nothing listens, the connection is refused.
  const Outcome refused = Pull("ppocrv6-tiny", "http://127.0.0.1:1");
  EXPECT_EQ(refused.exit_code, 5);
  EXPECT_THAT(refused.err, HasSubstr("http://127.0.0.1:1/pub/ppocrv6-tiny/det/det.onnx"));
  EXPECT_THAT(refused.err, HasSubstr("the host cannot be reached"));
  EXPECT_FALSE(fs::exists(models_ / "ppocrv6-tiny"));

  MirrorServer server(root_ / "mirror", root_ / "requests.log");
  ASSERT_TRUE(server.started());
  const Outcome missing = Pull("gone", server.base());
  EXPECT_EQ(missing.exit_code, 5);
  EXPECT_THAT(missing.err, HasSubstr("HTTP 404"));
  EXPECT_THAT(missing.err, HasSubstr("/pub/ppocrv6-tiny/det/not-there.onnx"));
  EXPECT_FALSE(fs::exists(models_ / "gone"));
}

// A write that fails with ENOSPC: the staged file is a link to /dev/full, which fails every write
// as a full disk does.
TEST_F(ModelsCommandTest, AFullDiskExits5) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full on this system";
  fs::create_directories(models_ / ".ppocrv6-tiny.partial" / "det");
  fs::create_symlink("/dev/full", models_ / ".ppocrv6-tiny.partial" / "det" / "det.onnx");
  const Outcome full = Pull("ppocrv6-tiny", (root_ / "mirror").string());
  EXPECT_EQ(full.exit_code, 5);
  EXPECT_THAT(full.err, HasSubstr("No space left on device (the disk is full"));
  EXPECT_THAT(full.err, HasSubstr("nothing was installed"));
  EXPECT_FALSE(fs::exists(models_ / "ppocrv6-tiny"));
}

TEST_F(ModelsCommandTest, UsageErrorsExit2) {
  const Outcome unknown = Pull("ppocrv9", "");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err,
              HasSubstr("no set 'ppocrv9' in " + catalog_.string() +
                        "; the sets are bad-sha, gone, mixed, ppocrv6-tiny or tiny-by-lines"));
  const Outcome built_in = RunOnnxocr({"models", "pull", "nope", "--dir", models_.string()});
  EXPECT_EQ(built_in.exit_code, 2);
  EXPECT_THAT(built_in.err, HasSubstr("ppocrv6-tiny"));
  const Outcome bad_mirror = Pull("ppocrv6-tiny", "ftp://mirror/x");
  EXPECT_EQ(bad_mirror.exit_code, 2);
  std::ofstream(root_ / "broken.json") << R"({"catalog_version": 1, "files": {"x": {}}})";
  const Outcome broken =
      RunOnnxocr({"models", "list", "--catalog", (root_ / "broken.json").string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.err, HasSubstr("files.x.url is missing"));
  EXPECT_FALSE(fs::exists(models_));
}

// A folder mirror (the air-gapped case), a classifier borrowed from ../ppocrv4, and the pulled set
// read by the server's own loader.
TEST_F(ModelsCommandTest, APulledSetFromAFolderMirrorReadsAnImage) {
  OCR_SHARED_TESTDATA_OR_SKIP(testdata);
  if (!LinkDefaultSet())
    GTEST_SKIP() << "models/ppocrv4 (scripts/bootstrap) is missing";
  const Outcome pulled = Pull("ppocrv6-tiny", (root_ / "mirror").string());
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_THAT(pulled.out, HasSubstr("installed in " + (models_ / "ppocrv6-tiny").string() +
                                    " (det, rec, cls)"));
  const auto manifest = pipeline::ReadManifest(models_ / "ppocrv6-tiny");
  ASSERT_OK(manifest);
  ASSERT_TRUE((*manifest)->cls.has_value());
  EXPECT_EQ((*manifest)->cls->path, "../ppocrv4/cls/cls.onnx");
  EXPECT_EQ((*manifest)->cls->family, pipeline::ModelFamily::kPpocrV4);

  const Outcome run =
      RunOnnxocr({"run", "--models", "v6=" + (models_ / "ppocrv6-tiny").string(), "--format",
                  "text", "--threads", "1", (testdata / "real" / "road_sign_en.jpg").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("EPPING")) << run.err;  // the town sign's name
}

TEST_F(ModelsCommandTest, AFileUrlMirrorAndADictionaryCheckedByItsLineCount) {
  const Outcome pulled = Pull("tiny-by-lines", "file://" + (root_ / "mirror").string(), {});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_THAT(pulled.out, HasSubstr("ppocrv6_tiny_dict.txt 27,156 B, 6,904 lines (dictionary "
                                    "checked by its line count; its sha256 c5cbe34ef40c... "
                                    "recorded)"));
  const auto manifest = pipeline::ReadManifest(models_ / "tiny-by-lines");
  ASSERT_OK(manifest);
  EXPECT_EQ((*manifest)->files.at("ppocrv6_tiny_dict.txt").sha256, kDictSha);
  EXPECT_EQ(Verify("tiny-by-lines").exit_code, 0);
}

TEST_F(ModelsCommandTest, VerifyAfterOneChangedByteExits5NamingTheFile) {
  // The mirror from the environment, as the container's entrypoint passes it.
  const Outcome pulled =
      Pull("ppocrv6-tiny", "", {"ONNXOCR_MODELS_MIRROR=" + (root_ / "mirror").string()});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  {
    std::fstream file(models_ / "ppocrv6-tiny" / "rec" / "rec.onnx",
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(1000);
    const char byte = static_cast<char>(file.get());
    file.seekp(1000);
    file.put(static_cast<char>(byte ^ 1));
  }
  const Outcome verified = Verify("ppocrv6-tiny");
  EXPECT_EQ(verified.exit_code, 5);
  EXPECT_THAT(verified.out, HasSubstr("FAIL rec/rec.onnx"));
  EXPECT_THAT(verified.out, HasSubstr("the manifest records " + std::string(kRecSha)));
  EXPECT_THAT(verified.out, HasSubstr("ok   det/det.onnx"));
  EXPECT_THAT(verified.err, HasSubstr("these files differ from manifest.json or are missing: "
                                      "rec/rec.onnx"));
  EXPECT_THAT(verified.err, Not(HasSubstr("det/det.onnx")));
  // A pull puts the catalog's file back, replacing the set whole.
  const Outcome repaired =
      Pull("ppocrv6-tiny", "", {"ONNXOCR_MODELS_MIRROR=" + (root_ / "mirror").string()});
  EXPECT_EQ(repaired.exit_code, 0) << repaired.err;
  EXPECT_EQ(Verify("ppocrv6-tiny").exit_code, 0);
}

TEST_F(ModelsCommandTest, AMixedSetPullsTheSetItNeedsFirstAndDownloadsNothing) {
  if (!LinkDefaultSet())
    GTEST_SKIP() << "models/ppocrv4 (scripts/bootstrap) is missing";
  const Outcome pulled = Pull("mixed", (root_ / "mirror").string());
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_LT(pulled.out.find("ppocrv6-tiny: installed"), pulled.out.find("mixed: installed"));
  const auto manifest = pipeline::ReadManifest(models_ / "mixed");
  ASSERT_OK(manifest);
  EXPECT_TRUE((*manifest)->files.empty());
  EXPECT_EQ((*manifest)->det->path, "../ppocrv6-tiny/det/det.onnx");
  const Outcome verified = Verify("mixed");
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_THAT(verified.out, HasSubstr("ok   ../ppocrv6-tiny/det/det.onnx"));
  EXPECT_THAT(verified.out, HasSubstr("0 files match its manifest.json, and the 4 files of its "
                                      "parts in other sets are there"));
}

}  // namespace
}  // namespace ocr::catalog
