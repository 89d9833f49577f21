#include "campaign/ledger_key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "util/atomic_file.h"
#include "util/sha256.h"

namespace kopt::campaign {

namespace fs = std::filesystem;

namespace {

std::string envOr(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string hex(const std::uint8_t* data, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

bool isKey(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

fs::path defaultLedgerKeyDir() {
  if (auto d = envOr("KOPT_STATE_DIR"); !d.empty()) return fs::path(d) / "ledger-keys";
  if (auto d = envOr("XDG_STATE_HOME"); !d.empty()) return fs::path(d) / "kopt" / "ledger-keys";
  if (auto d = envOr("HOME"); !d.empty()) return fs::path(d) / ".local" / "state" / "kopt" / "ledger-keys";
  return {};
}

fs::path ledgerKeyPath(const fs::path& keyDir, const fs::path& campaignRoot) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(fs::absolute(campaignRoot), ec);
  if (ec) root = fs::absolute(campaignRoot).lexically_normal();
  return keyDir / (util::sha256Hex(root.string()) + ".key");
}

std::optional<std::string> loadLedgerKey(const fs::path& keyDir, const fs::path& campaignRoot) {
  if (keyDir.empty()) return std::nullopt;
  const fs::path p = ledgerKeyPath(keyDir, campaignRoot);
  auto text = util::readFileIfExists(p);
  if (!text) return std::nullopt;
  std::string key = *text;
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (!isKey(key)) throw std::runtime_error(p.string() + " is not a kopt ledger key (64 hex digits)");
  return key;
}

std::string createLedgerKey(const fs::path& keyDir, const fs::path& campaignRoot) {
  if (keyDir.empty()) throw std::runtime_error("no directory for ledger keys (set KOPT_STATE_DIR, XDG_STATE_HOME or HOME)");
  fs::create_directories(keyDir);
  ::chmod(keyDir.c_str(), 0700);
  std::array<std::uint8_t, 32> bytes{};
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(reinterpret_cast<char*>(bytes.data()), bytes.size())) {
    throw std::runtime_error("cannot read /dev/urandom for a ledger key");
  }
  const std::string key = hex(bytes.data(), bytes.size());
  const fs::path p = ledgerKeyPath(keyDir, campaignRoot);
  const fs::path tmp = p.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  const std::string line = key + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write " + tmp.string());
  fs::rename(tmp, p);
  util::fsyncDirectory(keyDir);
  return key;
}

std::string hmacSha256Hex(std::string_view key, std::string_view message) {
  // RFC 2104 with a 64-byte block; keys longer than a block are hashed first.
  std::array<std::uint8_t, 64> block{};
  if (key.size() > block.size()) {
    util::Sha256 h;
    h.update(key);
    const auto d = h.finish();
    std::memcpy(block.data(), d.data(), d.size());
  } else {
    std::memcpy(block.data(), key.data(), key.size());
  }
  std::array<std::uint8_t, 64> ipad{}, opad{};
  for (std::size_t i = 0; i < block.size(); ++i) {
    ipad[i] = block[i] ^ 0x36;
    opad[i] = block[i] ^ 0x5c;
  }
  util::Sha256 inner;
  inner.update(ipad.data(), ipad.size());
  inner.update(message);
  const auto innerDigest = inner.finish();
  util::Sha256 outer;
  outer.update(opad.data(), opad.size());
  outer.update(innerDigest.data(), innerDigest.size());
  return outer.finishHex();
}

}  // namespace kopt::campaign
