#pragma once
// SHA-256 (FIPS 180-4) for the ledger chain, the frozen-file hashes and the build-tree
// fingerprints, computed by OpenSSL's libcrypto: kopt already depends on it through cpp-httplib
// (libcpp-httplib-dev requires libssl-dev), and it hashes about nine times faster than the
// portable C++ this replaced (155 MB/s on the build machine: 6-7 s per gigabyte of build tree
// hashed before every reused build, docs/integrity.md).
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

typedef struct evp_md_ctx_st EVP_MD_CTX;

namespace kopt::util {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  void update(const void* data, std::size_t size);
  std::array<std::uint8_t, 32> finish();  // the object must not be updated after finish()
  std::string finishHex();                // 64 lower-case hex digits

 private:
  EVP_MD_CTX* ctx_;
};

std::string sha256Hex(std::string_view data);
// Hash of a file's bytes, streamed. Throws IoError (util/atomic_file.h) when unreadable/missing.
std::string sha256FileHex(const std::filesystem::path& path);

}  // namespace kopt::util
