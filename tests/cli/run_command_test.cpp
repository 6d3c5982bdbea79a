// `onnxocr` as a user runs it: a child process, its exit code, stdout and stderr.
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/progress_bar.h"
#include "image/test_images.h"
#include "pdf/test_documents.h"
#include "pdf/test_pdfs.h"
#include "support/render_text.h"
#include "support/test_paths.h"

namespace ocr::cli {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// In a forked child: becomes `onnxocr ARGS` (without ONNXOCR_MODELS and ONNXOCR_PROGRESS from the
// test's environment).
[[noreturn]] void ExecOnnxocr(const std::vector<std::string>& args,
                              std::vector<std::string> env = {}) {
  std::string binary = OCR_ONNXOCR_BINARY;
  std::vector<std::string> copy = args;
  std::vector<char*> argv = {binary.data()};
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  unsetenv("ONNXOCR_MODELS");
  unsetenv("ONNXOCR_PROGRESS");
  for (std::string& setting : env)
    putenv(setting.data());
  execv(binary.c_str(), argv.data());
  _exit(127);
}

// `onnxocr ARGS` with stdout and stderr captured, stdin read from `stdin_path` (/dev/null when
// empty) and `env` ("NAME=VALUE") added to the environment.
Outcome RunOnnxocr(const std::vector<std::string>& args, const std::string& stdin_path = "",
                   const std::vector<std::string>& env = {}) {
  static int counter = 0;
  const std::string base =
      ::testing::TempDir() + "/cli_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string out_path = base + ".out";
  const std::string err_path = base + ".err";
  const pid_t pid = fork();
  if (pid == 0) {
    if (freopen(out_path.c_str(), "w", stdout) == nullptr)
      _exit(126);
    if (freopen(err_path.c_str(), "w", stderr) == nullptr)
      _exit(126);
    if (freopen(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), "r", stdin) == nullptr)
      _exit(126);
    std::vector<std::string> settings = env;
    ExecOnnxocr(args, settings);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = Slurp(out_path);
  o.err = Slurp(err_path);
  std::error_code ec;
  std::filesystem::remove(out_path, ec);
  std::filesystem::remove(err_path, ec);
  return o;
}

std::string RenderedOrSkip(const std::string& text) {
  return testing::RenderTextPng(text).string();
}

TEST(RunCommandTest, HelpAndVersion) {
  const Outcome help = RunOnnxocr({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  const Outcome version = RunOnnxocr({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("onnxocr 0."), std::string::npos) << version.out;
  EXPECT_NE(version.out.find("ONNX Runtime 1."), std::string::npos) << version.out;
}

TEST(RunCommandTest, UsageErrorsExitWith2) {
  EXPECT_EQ(RunOnnxocr({}).exit_code, 2);
  EXPECT_EQ(RunOnnxocr({"run"}).exit_code, 2);  // no file
  EXPECT_EQ(RunOnnxocr({"run", "--bogus", "x.png"}).exit_code, 2);
  const Outcome bad_format = RunOnnxocr({"run", "--format", "docx", "x.png"});
  EXPECT_EQ(bad_format.exit_code, 2);
  EXPECT_EQ(bad_format.err,
            "onnxocr run: --format must be one of json, markdown, html, text, hocr, alto, pdf, csv "
            "(got 'docx')\n");
  // The reading options' flags are checked by the options' own rules.
  const Outcome bad_score = RunOnnxocr({"run", "--drop-score", "2", "x.png"});
  EXPECT_EQ(bad_score.exit_code, 2);
  EXPECT_NE(bad_score.err.find("--drop-score: the value must be a number from 0 to 1"),
            std::string::npos)
      << bad_score.err;
  EXPECT_EQ(RunOnnxocr({"run", "--det-limit-type", "fast", "x.png"}).exit_code, 2);
  EXPECT_EQ(RunOnnxocr({"run", "--text-normalization", "maybe", "x.png"}).exit_code, 2);
}

// Exit code 2: a flag's value that cannot be right, told before any model loads, in the CLI's
// words (--pages, not the API's page_range).
TEST(RunCommandTest, ExitCode2ForBadPagesNamesTheFlag) {
  const Outcome o = RunOnnxocr({"run", "--pages", "abc", "/nonexistent/x.pdf"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "onnxocr run: --pages must look like 0-3,7 (pages from 0)\n");
  EXPECT_EQ(o.out, "");
  const Outcome beyond = RunOnnxocr({"run", "--pages", "300-400", "/nonexistent/x.pdf"});
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_EQ(beyond.err,
            "onnxocr run: --pages selects no page: pages are counted from 0, and "
            "--max-pdf-pages (200) refuses any document longer than 200 pages\n");
  const Outcome twice = RunOnnxocr({"run", "-", "-"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "onnxocr run: - (standard input) can be given only once\n");
  const Outcome progress = RunOnnxocr({"run", "--progress", "sometimes", "x.png"});
  EXPECT_EQ(progress.exit_code, 2);
  EXPECT_NE(progress.err.find("--progress"), std::string::npos) << progress.err;
}

// The flags' help speaks of the CLI's flags too (the option table's help names API fields).
TEST(RunCommandTest, HelpNamesFlagsNotApiFields) {
  const Outcome help = RunOnnxocr({"run", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* field : {"output_format", "page_range", "force_ocr", "paginate_output"})
    EXPECT_EQ(help.out.find(field), std::string::npos) << field << " in:\n" << help.out;
  EXPECT_NE(help.out.find("--format pdf: write PDF/A-2b"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--progress"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("ONNXOCR_PROGRESS"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("- reads standard input"), std::string::npos) << help.out;
}

TEST(RunCommandTest, BrokenModelSetExitsWith3NamingTheFile) {
  const Outcome o = RunOnnxocr({"run", "--models", "x=/nonexistent/set", "x.png"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("/nonexistent/set"), std::string::npos) << o.err;
}

TEST(RunCommandTest, MissingOrUndecodableInputExitsWith4) {
  const Outcome missing = RunOnnxocr({"run", "/nonexistent/image.png"});
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_EQ(missing.err, "onnxocr run: /nonexistent/image.png: no such file\n");
  const auto answer = nlohmann::json::parse(missing.out);
  EXPECT_EQ(answer["code"], "not_found");
  EXPECT_EQ(answer["error"], "/nonexistent/image.png: no such file");
  const Outcome directory = RunOnnxocr({"run", "--format", "text", ::testing::TempDir()});
  EXPECT_EQ(directory.exit_code, 4);
  EXPECT_NE(directory.err.find(": is a directory, not a file\n"), std::string::npos)
      << directory.err;
  const std::string junk = ::testing::TempDir() + "/junk.png";
  std::ofstream(junk, std::ios::binary) << "\x89PNG\r\n\x1a\n truncated";
  const Outcome bad = RunOnnxocr({"run", junk});
  EXPECT_EQ(bad.exit_code, 4);
  const auto json = nlohmann::json::parse(bad.out);
  EXPECT_EQ(json["success"], false);
  EXPECT_EQ(json["code"], "undecodable_image");
}

TEST(RunCommandTest, PrintsTheApiJsonForOneFile) {
  const std::string png = RenderedOrSkip("Order 7781 shipped");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed (scripts/bootstrap installs it)";
  const Outcome o = RunOnnxocr({"run", png});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto json = nlohmann::json::parse(o.out);
  ASSERT_TRUE(json.is_object());
  EXPECT_EQ(json.size(), 2u);  // exactly processing_time and results
  EXPECT_TRUE(json["processing_time"].is_number());
  ASSERT_EQ(json["results"].size(), 1u);
  const auto& line = json["results"][0];
  EXPECT_EQ(line.size(), 3u);
  std::string text = line["text"];
  std::erase(text, ' ');
  EXPECT_EQ(text, "Order7781shipped");
  EXPECT_GT(line["confidence"].get<double>(), 0.9);
  ASSERT_EQ(line["bounding_box"].size(), 4u);
  for (const auto& p : line["bounding_box"]) {
    ASSERT_EQ(p.size(), 2u);
    EXPECT_TRUE(p[0].is_number_float());
  }
}

TEST(RunCommandTest, SeveralFilesGiveAnArrayInOrderAndFailuresInPlace) {
  const std::string a = RenderedOrSkip("First file");
  const std::string b = RenderedOrSkip("Second file");
  if (a.empty() || b.empty())
    GTEST_SKIP() << "pango-view not installed";
  const Outcome o = RunOnnxocr({"run", a, "/nonexistent.png", b});
  EXPECT_EQ(o.exit_code, 4);
  const auto json = nlohmann::json::parse(o.out);
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 3u);
  std::string first = json[0]["results"][0]["text"];
  std::string second = json[2]["results"][0]["text"];
  std::erase(first, ' ');
  std::erase(second, ' ');
  EXPECT_EQ(first, "Firstfile");
  EXPECT_EQ(json[1]["code"], "not_found");  // a missing file is the user's to fix, not ours
  EXPECT_EQ(json[1]["error"], "/nonexistent.png: no such file");
  EXPECT_EQ(second, "Secondfile");
}

TEST(RunCommandTest, TextAndMarkdownFormats) {
  const std::string png = RenderedOrSkip("Heading line\nBody line");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const Outcome text = RunOnnxocr({"run", "--format", "text", png});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 2) << text.out;
  const Outcome html = RunOnnxocr({"run", "--format", "html", png});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<p>"), std::string::npos) << html.out;
}

}  // namespace
}  // namespace ocr::cli

namespace ocr::cli {
namespace {

TEST(RunCommandTest, ReadsPdfsPageByPageInMarkdownAndJson) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto pdf = pdf::testing::MakeTextPdf("cli_doc", {"Chapter one", "Chapter two"}, "a4");
  ASSERT_FALSE(pdf.empty());
  const Outcome md = RunOnnxocr({"run", "--format", "markdown", "--paginate", pdf.string()});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  const std::string dashes(48, '-');
  EXPECT_EQ(md.out, "\n\n{0}" + dashes + "\n\nChapter one\n\n{1}" + dashes + "\n\nChapter two");
  const Outcome json = RunOnnxocr({"run", "--pages", "1", pdf.string()});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["page_count"], 2);
  ASSERT_EQ(j["pages"].size(), 1u);
  EXPECT_EQ(j["pages"][0]["source"], "text_layer");
  EXPECT_EQ(j["results"][0]["text"], "Chapter two");
}

// `onnxocr run ARGS` with stderr on a pseudo-terminal (stdout to /dev/null): what the terminal
// showed.
std::string RunOnTerminal(const std::vector<std::string>& args) {
  int master = -1;
  int slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0)
    return "openpty failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(master);
    if (freopen("/dev/null", "w", stdout) == nullptr)
      _exit(126);
    dup2(slave, STDERR_FILENO);
    ExecOnnxocr(args);
  }
  close(slave);
  std::string seen;
  char buf[4096];
  ssize_t n;
  while ((n = read(master, buf, sizeof buf)) > 0)  // EIO once the child has exited
    seen.append(buf, static_cast<size_t>(n));
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  return seen;
}

TEST(RunCommandTest, DrawsAProgressBarOnlyOnATerminal) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto pdf = pdf::testing::MakeTextPdf("cli_progress", {"One", "Two", "Three"}, "a4");
  ASSERT_FALSE(pdf.empty());
  const Outcome piped = RunOnnxocr({"run", "--format", "text", pdf.string()});
  ASSERT_EQ(piped.exit_code, 0);
  EXPECT_EQ(piped.err, "") << "nothing extra when stderr is not a terminal";
  const std::string shown = RunOnTerminal({"run", "--format", "text", pdf.string()});
  EXPECT_NE(shown.find("page 3/3, file 1/1"), std::string::npos) << shown;
  EXPECT_NE(shown.find("page 1/3, file 1/1"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\r"), std::string::npos) << "the bar is redrawn in place";
  EXPECT_TRUE(shown.ends_with("\r\033[K")) << "the bar is erased at the end: " << shown;
  // --progress off silences it on a terminal too.
  const std::string off =
      RunOnTerminal({"run", "--progress", "off", "--format", "text", pdf.string()});
  EXPECT_EQ(off, "");
}

TEST(ProgressBarTest, RendersPageFileElapsedAndRate) {
  EXPECT_EQ(ProgressBar::Render({12, 48, 1, 2, 6.0, 12}),
            "[#####...............] page 12/48, file 1/2, 6.0 s, 2.0 pages/s");
  EXPECT_EQ(ProgressBar::Render({0, 48, 1, 1, 0.0, 0}),
            "[....................] page 0/48, file 1/1, 0.0 s");
  // The rate counts every page of the run, the files before this one's too.
  EXPECT_EQ(ProgressBar::Render({48, 48, 3, 3, 24.0, 96}),
            "[####################] page 48/48, file 3/3, 24.0 s, 4.0 pages/s");
}

// The bar's drawings as a terminal would get them, split at each \r + erase-line.
std::vector<std::string> Drawings(const std::string& err) {
  std::vector<std::string> drawings;
  const std::string redraw = "\r\033[K";
  for (std::size_t at = err.find(redraw); at != std::string::npos;) {
    const std::size_t next = err.find(redraw, at + redraw.size());
    drawings.push_back(err.substr(at + redraw.size(), next == std::string::npos
                                                          ? std::string::npos
                                                          : next - at - redraw.size()));
    at = next;
  }
  return drawings;
}

// --progress on (or ONNXOCR_PROGRESS=on) draws it when stderr is a file too: every page of every
// file in order, each drawing in place, erased at the end, and nothing else on stderr.
TEST(RunCommandTest, ProgressOnShowsPageFileElapsedAndRate) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto three = pdf::testing::MakeTextPdf("cli_progress3", {"One", "Two", "Three"}, "a4");
  const auto two = pdf::testing::MakeTextPdf("cli_progress2", {"Four", "Five"}, "a4");
  ASSERT_FALSE(three.empty());
  ASSERT_FALSE(two.empty());
  const Outcome o =
      RunOnnxocr({"run", "--progress", "on", "--format", "text", three.string(), two.string()});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "==> " + three.string() + " <==\nOne\n\nTwo\n\nThree\n==> " + two.string() +
                       " <==\nFour\n\nFive\n");
  EXPECT_TRUE(o.err.starts_with("\r\033[K")) << o.err;
  EXPECT_TRUE(o.err.ends_with("\r\033[K")) << "erased at the end: " << o.err;
  EXPECT_EQ(o.err.find('\n'), std::string::npos) << "drawn in place: " << o.err;
  std::vector<std::string> drawings = Drawings(o.err);
  ASSERT_FALSE(drawings.empty());
  EXPECT_EQ(drawings.back(), "") << "the last redraw erases";
  drawings.pop_back();
  const std::regex shape(
      R"(\[[#.]{20}\] page (\d)/(\d), file (\d)/2, (\d+\.\d) s(, \d+\.\d pages/s)?)");
  std::vector<std::string> seen;
  double last_seconds = 0;
  for (const std::string& drawing : drawings) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(drawing, m, shape)) << drawing;
    seen.push_back(m[3].str() + ":" + m[1].str() + "/" + m[2].str());
    EXPECT_EQ(m[5].matched, m[1] != "0" || m[3] != "1")
        << "a rate once a page is read: " << drawing;
    const double seconds = std::stod(m[4]);
    EXPECT_GE(seconds, last_seconds) << "elapsed never goes back";
    last_seconds = seconds;
  }
  // Files are read side by side, so the second may be partly or wholly read by the time the
  // output waits for it: the bar follows the file the output waits for, each file's count only
  // grows and ends complete, and nothing is drawn twice.
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), "1:0/3");
  const auto second = std::find_if(seen.begin(), seen.end(),
                                   [](const std::string& s) { return s.starts_with("2:"); });
  ASSERT_NE(second, seen.end()) << ::testing::PrintToString(seen);
  EXPECT_EQ(*std::prev(second), "1:3/3") << ::testing::PrintToString(seen);
  EXPECT_EQ(seen.back(), "2:2/2") << ::testing::PrintToString(seen);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << ::testing::PrintToString(seen);
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end())
      << ::testing::PrintToString(seen);
  // The environment variable does the same; off (the default when stderr is a file) draws none.
  const Outcome env =
      RunOnnxocr({"run", "--format", "text", two.string()}, "", {"ONNXOCR_PROGRESS=on"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.err.find("page 2/2, file 1/1"), std::string::npos) << env.err;
  const Outcome quiet = RunOnnxocr({"run", "--format", "text", two.string()});
  EXPECT_EQ(quiet.err, "");
}

// `-` reads standard input to its end; the type comes from the bytes, as for files.
TEST(RunCommandTest, DashReadsStandardInput) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const std::string png = RenderedOrSkip("Order 7781 shipped");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const Outcome image = RunOnnxocr({"run", "-"}, png);
  ASSERT_EQ(image.exit_code, 0) << image.err;
  const auto json = nlohmann::json::parse(image.out);
  ASSERT_EQ(json["results"].size(), 1u) << image.out;
  EXPECT_EQ(pdf::testing::WithoutSpaces(json["results"][0]["text"]), "Order7781shipped");
  const auto doc = pdf::testing::MakeTextPdf("cli_stdin", {"Chapter one", "Chapter two"}, "a4");
  ASSERT_FALSE(doc.empty());
  const Outcome text = RunOnnxocr({"run", "--format", "text", png, "-"}, doc.string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(pdf::testing::WithoutSpaces(text.out),
            "==>" + pdf::testing::WithoutSpaces(png) +
                "<==\nOrder7781shipped\n==>standardinput<==\nChapterone\n\nChaptertwo\n");
  // Nothing on stdin is an empty input, refused as such.
  const Outcome empty = RunOnnxocr({"run", "-"});
  EXPECT_EQ(empty.exit_code, 4);
  EXPECT_TRUE(empty.err.starts_with("onnxocr run: standard input: ")) << empty.err;
  EXPECT_EQ(nlohmann::json::parse(empty.out)["code"], "unsupported_media_type");
}

// --format pdf without -o writes the PDF to stdout when stdout is not a terminal.
TEST(RunCommandTest, PdfGoesToStdoutWhenItIsNotATerminal) {
  const std::string png = RenderedOrSkip("Order 7781 shipped");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const Outcome o = RunOnnxocr({"run", "--format", "pdf", "-"}, png);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(o.out.starts_with("%PDF-")) << o.out.substr(0, 16);
  EXPECT_NE(o.out.find("%%EOF"), std::string::npos);
  EXPECT_TRUE(o.err.starts_with("onnxocr run: standard input: 1 pages read in ")) << o.err;
}

// A page range past the document's end is a usage error, worded with --pages.
TEST(RunCommandTest, PagesPastTheEndExitWith2NamingTheFlag) {
  std::string missing;
  if (!pdf::testing::HaveTools(&missing))
    GTEST_SKIP() << "PDF tools missing: " << missing;
  const auto doc = pdf::testing::MakeTextPdf("cli_pages", {"One", "Two"}, "a4");
  ASSERT_FALSE(doc.empty());
  const Outcome o = RunOnnxocr({"run", "--pages", "5", doc.string()});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "onnxocr run: " + doc.string() + ": --pages selects no page of this 2-page document\n");
  EXPECT_EQ(nlohmann::json::parse(o.out)["error"],
            "--pages selects no page of this 2-page document");
}

}  // namespace
}  // namespace ocr::cli

// End to end: the test documents of pdf/test_documents.h in every output format, as the API
// tests read them too.
namespace ocr::cli {
namespace {

namespace pt = pdf::testing;

class RunDocumentTest : public pt::PdfToolsTest {
 protected:
  // `onnxocr run` with `args` then the file; stdout, after checking the exit code is 0.
  static std::string RunOk(std::vector<std::string> args, const std::filesystem::path& file) {
    args.insert(args.begin(), "run");
    args.push_back(file.string());
    const Outcome o = RunOnnxocr(args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return o.out;
  }

  // `onnxocr run` once per format (pt::EveryFormat): JSON answers and stdout checked.
  static void ExpectEveryFormat(const pt::TestDocument& doc, std::string_view source,
                                bool paginate) {
    std::vector<int> all(doc.pages.size());
    std::iota(all.begin(), all.end(), 0);
    for (const pt::FormatRun& run : pt::EveryFormat(paginate)) {
      SCOPED_TRACE(run.format + (run.paginate ? ", paginated" : ""));
      std::vector<std::string> args = {"--format", run.format};
      if (run.paginate)
        args.emplace_back("--paginate");
      const std::string out = RunOk(args, doc.pdf);
      if (run.format == "json") {
        pt::ExpectDocumentAnswer(nlohmann::json::parse(out), doc, "json", all, false, source);
      } else {
        pt::ExpectOutput(out, doc, run.format, all, run.paginate, source);
      }
    }
  }
};

TEST_F(RunDocumentTest, ScannedTenPagePdfInEveryFormat) {
  const pt::TestDocument doc = pt::MakeScannedDocument("cli_scan10");
  ASSERT_FALSE(doc.pdf.empty());
  ExpectEveryFormat(doc, "ocr", true);
}

TEST_F(RunDocumentTest, BornDigitalPdfInEveryFormat) {
  const pt::TestDocument doc = pt::MakeBornDigitalDocument("cli_born");
  ASSERT_FALSE(doc.pdf.empty());
  ExpectEveryFormat(doc, "text_layer", false);
  // --force-ocr reads what the page shows instead of its text layer.
  pt::ExpectDocumentAnswer(nlohmann::json::parse(RunOk({"--force-ocr", "--pages", "0"}, doc.pdf)),
                           doc, "json", {0}, false, "ocr");
}

TEST_F(RunDocumentTest, WordBoxesListEachLinesWords) {
  const std::string png = testing::RenderTextPng("Order 7781 shipped").string();
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  const auto image = nlohmann::json::parse(RunOk({"--word-boxes"}, png));
  ASSERT_EQ(image["results"].size(), 1u) << image.dump();
  const nlohmann::json& line = image["results"][0];
  ASSERT_FALSE(line["words"].empty()) << line.dump();
  std::string joined;
  for (const nlohmann::json& word : line["words"]) {
    joined += word["text"].get<std::string>();
    EXPECT_GT(word["confidence"].get<double>(), 0.5);
    EXPECT_EQ(word["bounding_box"].size(), 4u);
  }
  EXPECT_EQ(joined, pt::WithoutSpaces(line["text"]));
  EXPECT_FALSE(nlohmann::json::parse(RunOk({}, png))["results"][0].contains("words"));
  EXPECT_FALSE(
      nlohmann::json::parse(RunOk({"--word-boxes", "--no-word-boxes"}, png))["results"][0].contains(
          "words"));

  // Text-layer lines carry their words too, with the layer's exact texts.
  const auto pdf = pt::MakeTextPdf("cli_words", {"Invoice 1001 paid"}, "a4");
  ASSERT_FALSE(pdf.empty());
  const auto document = nlohmann::json::parse(RunOk({"--word-boxes"}, pdf));
  const nlohmann::json& words = document["pages"][0]["results"][0]["words"];
  ASSERT_EQ(words.size(), 3u) << document.dump();
  EXPECT_EQ(words[0]["text"], "Invoice");
  EXPECT_EQ(words[2]["text"], "paid");
  EXPECT_EQ(words[1]["confidence"], 1.0);
}

TEST_F(RunDocumentTest, MultiFrameTiffIsReadPageByPage) {
  const auto bytes = image::testing::RenderTextTiff({"First frame", "Second frame"});
  if (bytes.empty())
    GTEST_SKIP() << "pango-view not installed";
  const std::filesystem::path tiff = pt::TempPath("frames.tiff");
  std::ofstream(tiff, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const auto json = nlohmann::json::parse(RunOk({}, tiff));
  EXPECT_EQ(json["page_count"], 2);
  ASSERT_EQ(json["pages"].size(), 2u);
  EXPECT_EQ(json["pages"][1]["page"], 1);
  EXPECT_EQ(json["pages"][1]["source"], "ocr");
  EXPECT_EQ(pt::WithoutSpaces(json["pages"][1]["results"][0]["text"]), "Secondframe");
  EXPECT_EQ(pt::WithoutSpaces(RunOk({"--format", "text", "--paginate", "--pages", "1"}, tiff)),
            "\n\n{1}" + std::string(48, '-') + "\n\nSecondframe");
}

}  // namespace
}  // namespace ocr::cli

namespace ocr::cli {
namespace {

// hOCR is well-formed XML and ALTO valid against the ALTO 4.4 schema (xmllint, offline), both
// with every word of the page read.
TEST_F(RunDocumentTest, HocrIsWellFormedAndAltoValidates) {
  const auto png = testing::RenderTextPng("Invoice 1001 paid\nTotal 42 <boxes>");
  if (png.empty())
    GTEST_SKIP() << "pango-view not installed";
  if (std::system("command -v xmllint >/dev/null") != 0)
    GTEST_SKIP() << "xmllint not installed (Debian's libxml2-utils; scripts/bootstrap installs it)";
  const std::filesystem::path dir = pt::TempPath("archive_xml");
  std::filesystem::create_directories(dir);
  const auto write = [&dir](const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  };
  const std::string hocr = RunOk({"--format", "hocr"}, png);
  for (const char* word : {">Invoice</span>", ">paid</span>", ">&lt;boxes&gt;</span>"})
    EXPECT_NE(hocr.find(word), std::string::npos) << word << "\n" << hocr;
  EXPECT_EQ(pt::Run("xmllint --noout '" + write("page.hocr", hocr).string() + "'"), true);

  const std::string alto = RunOk({"--format", "alto"}, png);
  for (const char* word : {"CONTENT='Invoice'", "CONTENT='42'", "<SP "})
    EXPECT_NE(alto.find(word), std::string::npos) << word << "\n" << alto;
  const std::filesystem::path alto_path = write("page.alto.xml", alto);
  EXPECT_TRUE(pt::Run("xmllint --noout '" + alto_path.string() + "'"));
  const std::optional<std::filesystem::path> shared = testing::SharedTestdata();
  if (!shared)
    GTEST_SKIP()
        << "../shared/schemas is absent: the ALTO was checked as XML, not against its schema";
  const std::filesystem::path schema = shared->parent_path() / "schemas" / "alto-4-4-local.xsd";
  EXPECT_TRUE(
      pt::Run("xmllint --noout --schema '" + schema.string() + "' '" + alto_path.string() + "'"));
}

}  // namespace
}  // namespace ocr::cli
