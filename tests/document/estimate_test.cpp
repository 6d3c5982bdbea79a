// PageReader::EstimateBytes: the memory a document may hold at once, from headers alone.
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

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

// A PNG header may claim any size up to 2^31 - 1 pixels a side: the estimate saturates, so that
// any memory budget refuses the document, instead of overflowing into a small or negative number
// (http_fuzz found the overflow; tests/regressions/http_fuzz replays its input).
TEST(EstimateBytesTest, AHeaderClaimingBillionsOfPixelsASideSaturates) {
  std::vector<std::uint8_t> png;
  ASSERT_TRUE(cv::imencode(".png", cv::Mat(8, 8, CV_8UC1, cv::Scalar(255)), png));
  // IHDR's width and height, big-endian, right after the signature and the chunk's length and
  // type (its CRC is left as it was: the header is read, not checked).
  for (const std::size_t at : {std::size_t{16}, std::size_t{20}}) {
    png[at] = 0x73;
    png[at + 1] = 0x00;
    png[at + 2] = 0x00;
    png[at + 3] = 0x18;
  }
  const Result<std::int64_t> estimate = Estimate(png, {}, 4);
  ASSERT_TRUE(estimate.ok()) << estimate.status().ToString();
  EXPECT_EQ(*estimate, std::numeric_limits<std::int64_t>::max());
}

}  // namespace
}  // namespace ocr::document
