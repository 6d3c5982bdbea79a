// PageReader::EstimateBytes: the memory a document may hold at once, from headers alone.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "document/document.h"
#include "image/test_images.h"
#include "support/test_paths.h"

namespace ocr::document {
namespace {

// The estimate of the document `bytes` opened with `options`.
Result<std::int64_t> Estimate(const std::vector<std::uint8_t>& bytes,
                              const DocumentOptions& options, int parallel_pages) {
  OCR_ASSIGN_OR_RETURN(const auto reader, PageReader::Open(bytes, options));
  return reader->EstimateBytes(parallel_pages);
}

TEST(EstimateBytesTest, CountsTheTiffFramesInFlightThatPageRangeSelects) {
  const std::vector<std::uint8_t> tiff = image::testing::BuildGrayTiffFrames(
      false, {cv::Size(100, 50), cv::Size(100, 50), cv::Size(100, 50)});
  DocumentOptions all;
  DocumentOptions one;
  one.page_range = "1";
  const Result<std::int64_t> per_page = Estimate(tiff, one, 4);
  ASSERT_TRUE(per_page.ok()) << per_page.status().ToString();
  EXPECT_GT(*per_page, 100 * 50);
  const Result<std::int64_t> three = Estimate(tiff, all, 4);
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ(*three, 3 * *per_page);
  // No more pages in flight than the group has workers.
  const Result<std::int64_t> two_workers = Estimate(tiff, all, 2);
  ASSERT_TRUE(two_workers.ok()) << two_workers.status().ToString();
  EXPECT_EQ(*two_workers, 2 * *per_page);
  // A range that selects no frame is refused when the document is opened.
  DocumentOptions none;
  none.page_range = "7";
  EXPECT_EQ(Estimate(tiff, none, 4).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ocr::document
