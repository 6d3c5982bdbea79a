// Test PDFs made at run time from sources the tests control, so no PDF is checked in:
// born-digital pages from text through enscript + ps2pdf (ghostscript), scanned-style pages from
// a ghostscript raster wrapped by img2pdf, rotated and encrypted copies through qpdf, and small
// hand-written PDFs (exact shapes, colours, hostile structures) built in memory.
// Debian packages: enscript, ghostscript, qpdf, img2pdf. Thread-safety: none (tests only).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ocr::pdf::testing {

// Whether every external tool is on PATH; otherwise the message names the missing ones.
bool HaveTools(std::string* missing);

// Runs a shell command, its output appended to a log in the temp dir; true on exit status 0.
bool Run(const std::string& command);

// A fresh path in a per-process folder under ::testing::TempDir().
std::filesystem::path TempPath(const std::string& name);

// Removes the per-process folder of TempPath() and everything in it.
void RemoveTempFolder();

// A fixture for tests that make PDFs: each test skips with a message when a tool is missing, and
// the suite's temp folder is removed after its last test.
class PdfToolsTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { RemoveTempFolder(); }

  void SetUp() override {
    std::string missing;
    if (!HaveTools(&missing))
      GTEST_SKIP() << "PDF tools missing: " << missing;
  }
};

// Born-digital text PDF: one page per element of `pages` (lines separated by '\n'), Courier 12,
// on `paper` ("a4" or "letter"). Empty path on failure.
std::filesystem::path MakeTextPdf(const std::string& name, const std::vector<std::string>& pages,
                                  const std::string& paper);

// Scanned-style PDF: page 1 of `source` rasterized to a grey PNG at 100 dpi and wrapped into an
// A4 image-only PDF (no text layer). Empty path on failure.
std::filesystem::path MakeScannedPdf(const std::string& name, const std::filesystem::path& source);

// qpdf --rotate=+<degrees>:<page 1-based>.
std::filesystem::path MakeRotatedPdf(const std::string& name, const std::filesystem::path& source,
                                     int degrees, int page);

// qpdf --encrypt <user> <owner> 256.
std::filesystem::path MakeEncryptedPdf(const std::string& name, const std::filesystem::path& source,
                                       const std::string& user_password);

std::vector<std::uint8_t> ReadBytes(const std::filesystem::path& path);

// A one-page PDF written by hand: page `width_pt` x `height_pt` with `content` as its content
// stream (PDF operators) and `resources` as its /Resources dictionary.
std::vector<std::uint8_t> HandWrittenPdf(double width_pt, double height_pt,
                                         const std::string& content,
                                         const std::string& resources = "<< >>");

// Builds a PDF from objects 1..n (object 1 must be the catalog), with a correct xref table.
std::vector<std::uint8_t> BuildPdf(const std::vector<std::string>& objects);

}  // namespace ocr::pdf::testing
