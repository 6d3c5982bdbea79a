#include "common/status.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace ocr {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0)
    return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  OCR_ASSIGN_OR_RETURN(int h, Half(x));
  OCR_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckQuarter(int x) {
  OCR_RETURN_IF_ERROR(Quarter(x).status());
  return Status::Ok();
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s(StatusCode::kImageTooLarge, "60000x60000 is over the limit");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kImageTooLarge);
  EXPECT_EQ(s.ToString(), "image_too_large: 60000x60000 is over the limit");
}

TEST(StatusTest, MacrosPropagateFirstError) {
  auto ok = Quarter(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 2);
  auto bad = Quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "odd: 3");
  EXPECT_TRUE(CheckQuarter(4).ok());
  EXPECT_EQ(CheckQuarter(5).message(), "odd: 5");
}

TEST(IsOkTest, MatchesOkStatusesAndResultsWithAValue) {
  EXPECT_THAT(Status::Ok(), testing::IsOk());
  EXPECT_THAT(Quarter(8), testing::IsOk());
  EXPECT_THAT(Quarter(6), ::testing::Not(testing::IsOk()));
  EXPECT_THAT(CheckQuarter(5), ::testing::Not(testing::IsOk()));
}

TEST(IsOkTest, EvaluatesItsArgumentOnceAndPrintsTheStatus) {
  int calls = 0;
  auto failing = [&calls] {
    ++calls;
    return Quarter(6);
  };
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(failing()), "invalid_argument: odd: 3");
  EXPECT_EQ(calls, 1);
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(CheckQuarter(5)), "invalid_argument: odd: 5");
}

}  // namespace
}  // namespace ocr
