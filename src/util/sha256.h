#pragma once
// SHA-256 (FIPS 180-4), our own small implementation: the ledger chain and the frozen-file hashes
// must not depend on an optional crypto library being installed.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kopt::util {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  void update(const void* data, std::size_t size);
  std::array<std::uint8_t, 32> finish();  // the object must not be updated after finish()
  std::string finishHex();                // 64 lower-case hex digits

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_;
  std::size_t bufferSize_ = 0;
  std::uint64_t totalBytes_ = 0;
};

std::string sha256Hex(std::string_view data);
// Hash of a file's bytes, streamed. Throws IoError (util/atomic_file.h) when unreadable/missing.
std::string sha256FileHex(const std::filesystem::path& path);

}  // namespace kopt::util
