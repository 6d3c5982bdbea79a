// SHA-256 of files and bytes (OpenSSL's libcrypto), as lower-case hex: what a model catalog pins
// and /info reports of each model file.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "common/status.h"

namespace ocr {

// Incremental SHA-256, for a file read (or downloaded) in pieces.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::span<const std::uint8_t> bytes);
  // The digest of everything given so far, as 64 lower-case hex digits. Call once.
  std::string HexDigest();

 private:
  void* context_;  // EVP_MD_CTX
};

std::string Sha256Hex(std::span<const std::uint8_t> bytes);

// The digest of the file at `path`. Errors: kNotFound when it cannot be opened; kIoError when a
// read fails.
Result<std::string> Sha256OfFile(const std::filesystem::path& path);

}  // namespace ocr
