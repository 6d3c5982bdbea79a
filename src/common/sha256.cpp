#include "common/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>

#include "common/check.h"

namespace ocr {

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  OCR_CHECK(context_ != nullptr);
  OCR_CHECK(EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), EVP_sha256(), nullptr) == 1);
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_));
}

void Sha256::Update(std::span<const std::uint8_t> bytes) {
  OCR_CHECK(EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(context_), bytes.data(), bytes.size()) == 1);
}

std::string Sha256::HexDigest() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  OCR_CHECK(EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), digest.data(), &length) == 1);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size_t{length} * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

std::string Sha256Hex(std::span<const std::uint8_t> bytes) {
  Sha256 sha;
  sha.Update(bytes);
  return sha.HexDigest();
}

Result<std::string> Sha256OfFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status(StatusCode::kNotFound, "cannot open " + path.string());
  Sha256 sha;
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = static_cast<size_t>(in.gcount());
    sha.Update({reinterpret_cast<const std::uint8_t*>(buffer.data()), got});
  }
  if (in.bad())
    return Status(StatusCode::kIoError, "cannot read " + path.string());
  return sha.HexDigest();
}

}  // namespace ocr
