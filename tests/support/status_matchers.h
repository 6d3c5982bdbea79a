// gmock support for ocr::Status and ocr::Result<T>: the IsOk() matcher, EXPECT_OK/ASSERT_OK over
// it, and printers so a failure shows the status ("invalid_argument: odd: 3"). As in leveldb
// util/testutil.h (MATCHER(IsOK)). Thread-safety: pure functions.
//
//   EXPECT_THAT(DecodeImage(bytes), IsOk());
//   ASSERT_OK(model);  // evaluates `model` once; on failure prints its status
#pragma once

#include <ostream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/status.h"

namespace ocr {

// Found by argument-dependent lookup when gtest prints a Status or Result in a failure.
inline void PrintTo(const Status& status, std::ostream* os) {
  *os << status.ToString();
}

template <typename T>
void PrintTo(const Result<T>& result, std::ostream* os) {
  if (result.ok()) {
    *os << "a value (ok)";
  } else {
    *os << result.status().ToString();
  }
}

namespace testing {

// Matches an OK Status, or a Result that holds a value.
MATCHER(IsOk, "") {
  return arg.ok();
}

}  // namespace testing
}  // namespace ocr

#define EXPECT_OK(expr) EXPECT_THAT((expr), ::ocr::testing::IsOk())
#define ASSERT_OK(expr) ASSERT_THAT((expr), ::ocr::testing::IsOk())
