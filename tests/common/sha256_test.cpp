#include "common/sha256.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace ocr {
namespace {

std::span<const std::uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(Sha256Test, KnownDigests) {
  // FIPS 180-2's examples.
  EXPECT_EQ(Sha256Hex(Bytes("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex(Bytes("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, PiecesHashAsTheWhole) {
  Sha256 sha;
  sha.Update(Bytes("ab"));
  sha.Update(Bytes("c"));
  EXPECT_EQ(sha.HexDigest(), Sha256Hex(Bytes("abc")));
}

TEST(Sha256Test, FileLargerThanOneReadAndMissingFile) {
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "sha256_test";
  const std::string text(200000, 'x');
  std::ofstream(path, std::ios::binary) << text;
  const Result<std::string> digest = Sha256OfFile(path);
  ASSERT_OK(digest);
  EXPECT_EQ(*digest, Sha256Hex(Bytes(text)));
  const Result<std::string> missing = Sha256OfFile(path.string() + ".missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ocr
