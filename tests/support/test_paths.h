// Where tests find their inputs. Thread-safe (pure functions).
//
// ../shared/testdata sits beside the checkout in the team's workspace and in CI, but a plain clone
// does not have it: tests that need it call SharedTestdataOrSkip() and skip with a clear message.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/status.h"
#include "support/status_matchers.h"  // EXPECT_OK, ASSERT_OK

namespace ocr::testing {

std::filesystem::path SourceDir();

// The build tree (where onnxocr and the test binaries are).
std::filesystem::path BinaryDir();

// models/ppocrv4 as installed by scripts/bootstrap (always present after bootstrap).
std::filesystem::path DefaultModelDir();

// ../shared/testdata if present (override with OCR_SHARED_TESTDATA), else nullopt.
std::optional<std::filesystem::path> SharedTestdata();

// A PP-OCRv6 tiny set laid out in the test's temp folder: ../shared/models/ppocrv6-tiny's det, rec
// and dictionary (override that models folder with OCR_SHARED_MODELS) with the default set's
// classifier, each linked, never copied; nullopt when ../shared has no v6 tiny set.
std::optional<std::filesystem::path> SharedV6TinySet();

std::string ReadFileOrDie(const std::filesystem::path& path);

}  // namespace ocr::testing

// Skips the current test when ../shared/models/ppocrv6-tiny is missing.
#define OCR_SHARED_V6_TINY_OR_SKIP(var)                                             \
  auto var##_opt = ::ocr::testing::SharedV6TinySet();                               \
  if (!var##_opt)                                                                   \
    GTEST_SKIP() << "../shared/models/ppocrv6-tiny not found beside the checkout; " \
                    "set OCR_SHARED_MODELS to run this test";                       \
  const std::filesystem::path var = *var##_opt

// Skips the current test when ../shared/testdata is missing.
#define OCR_SHARED_TESTDATA_OR_SKIP(var)                                 \
  auto var##_opt = ::ocr::testing::SharedTestdata();                     \
  if (!var##_opt)                                                        \
    GTEST_SKIP() << "../shared/testdata not found beside the checkout; " \
                    "set OCR_SHARED_TESTDATA to run this test";          \
  const std::filesystem::path var = *var##_opt
