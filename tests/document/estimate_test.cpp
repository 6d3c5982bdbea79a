// EstimateDocumentBytes: the memory a document may hold at once, from headers alone.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "document/document.h"
#include "image/test_images.h"
#include "support/test_paths.h"

namespace ocr::document {
namespace {

TEST(EstimateDocumentBytesTest, CountsTheTiffFramesInFlightThatPageRangeSelects) {
  const std::vector<std::uint8_t> tiff = image::testing::BuildGrayTiffFrames(
      false, {cv::Size(100, 50), cv::Size(100, 50), cv::Size(100, 50)});
  DocumentOptions all;
  DocumentOptions one;
  one.page_range = "1";
  const Result<std::int64_t> per_page = EstimateDocumentBytes(tiff, one, 4);
  ASSERT_TRUE(per_page.ok()) << per_page.status().ToString();
  EXPECT_GT(*per_page, 100 * 50);
  const Result<std::int64_t> three = EstimateDocumentBytes(tiff, all, 4);
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ(*three, 3 * *per_page);
  // No more pages in flight than the group has workers.
  const Result<std::int64_t> two_workers = EstimateDocumentBytes(tiff, all, 2);
  ASSERT_TRUE(two_workers.ok()) << two_workers.status().ToString();
  EXPECT_EQ(*two_workers, 2 * *per_page);
  // A range that selects no frame is refused as ReadDocument would refuse it.
  DocumentOptions none;
  none.page_range = "7";
  EXPECT_EQ(EstimateDocumentBytes(tiff, none, 4).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ocr::document
