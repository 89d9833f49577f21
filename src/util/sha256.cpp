#include "util/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <new>
#include <stdexcept>

#include "util/atomic_file.h"

namespace kopt::util {

namespace {
// A digest that cannot start or take bytes is a broken libcrypto, not a condition to recover from.
void require(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("sha256: OpenSSL ") + what + " failed");
}
}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw std::bad_alloc();
  if (EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    throw std::runtime_error("sha256: OpenSSL EVP_DigestInit_ex failed");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::update(std::string_view data) { update(data.data(), data.size()); }

void Sha256::update(const void* data, std::size_t size) {
  if (size > 0) require(EVP_DigestUpdate(ctx_, data, size), "EVP_DigestUpdate");
}

std::array<std::uint8_t, 32> Sha256::finish() {
  std::array<std::uint8_t, 32> out{};
  unsigned int n = 0;
  require(EVP_DigestFinal_ex(ctx_, out.data(), &n), "EVP_DigestFinal_ex");
  if (n != out.size()) throw std::runtime_error("sha256: OpenSSL returned a digest of another size");
  return out;
}

std::string Sha256::finishHex() {
  static const char* digits = "0123456789abcdef";
  auto bytes = finish();
  std::string hex;
  hex.reserve(64);
  for (auto b : bytes) {
    hex.push_back(digits[b >> 4]);
    hex.push_back(digits[b & 15]);
  }
  return hex;
}

std::string sha256Hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finishHex();
}

std::string sha256FileHex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw IoError(path, "cannot open to hash");
  Sha256 h;
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    if (in.gcount() > 0) h.update(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw IoError(path, "read failed while hashing");
  return h.finishHex();
}

}  // namespace kopt::util
