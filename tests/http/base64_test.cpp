// The base64 decoder of the JSON upload form (http/base64.h).
#include "http/base64.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace ocr::http {
namespace {

TEST(Base64Test, DecodesPaddedUnpaddedWrappedAndDataUri) {
  EXPECT_EQ(*DecodeBase64("aGVsbG8="), "hello");
  EXPECT_EQ(*DecodeBase64("aGVsbG8"), "hello");
  EXPECT_EQ(*DecodeBase64("aGVs\r\nbG8h\n"),
            "hell"
            "o!");
  EXPECT_EQ(*DecodeBase64("data:image/png;base64,aGk="), "hi");
  EXPECT_EQ(*DecodeBase64("AA=="), std::string(1, '\0'));
}

TEST(Base64Test, RejectsInvalidInput) {
  for (const char* bad : {"", "   ", "aGVs*G8=", "a", "aGk=aGk=", "aG===", "aGk",
                          "data:image/png,aGk=", "data:;base64"}) {
    const auto r = DecodeBase64(bad);
    if (std::string_view(bad) == "aGk") {
      EXPECT_TRUE(r.ok());  // unpadded is fine
      continue;
    }
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
  }
}

}  // namespace
}  // namespace ocr::http
