#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace kopt::util {
namespace fs = std::filesystem;

IoError::IoError(const fs::path& path, const std::string& what)
    : std::runtime_error(path.string() + ": " + what), path_(path) {}

namespace {

std::string errnoText() { return std::strerror(errno); }

// Writes all bytes, retrying on EINTR and short writes.
void writeAll(int fd, std::string_view data, const fs::path& path) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(path, "write failed: " + errnoText());
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string tempSuffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::ostringstream s;
  s << ".kopt-tmp-" << ::getpid() << "-" << std::hex << rng();
  return s.str();
}

}  // namespace

void fsyncDirectory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw IoError(dir, "cannot open directory to fsync: " + errnoText());
  int rc = ::fsync(fd);
  int saved = errno;
  ::close(fd);
  // Some filesystems refuse fsync on directories (EINVAL); the rename is still ordered there.
  if (rc != 0 && saved != EINVAL) {
    errno = saved;
    throw IoError(dir, "fsync of directory failed: " + errnoText());
  }
}

void writeFileAtomic(const fs::path& path, std::string_view content) {
  fs::path parent = path.parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw IoError(parent, "cannot create directory: " + ec.message());
  }
  fs::path tmp = path;
  tmp += tempSuffix();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError(tmp, "cannot create temp file: " + errnoText());
  try {
    writeAll(fd, content, tmp);
    if (::fsync(fd) != 0) throw IoError(tmp, "fsync failed: " + errnoText());
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw IoError(tmp, "close failed: " + errnoText());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = errnoText();
    ::unlink(tmp.c_str());
    throw IoError(path, "rename into place failed: " + why);
  }
  fsyncDirectory(parent.empty() ? fs::path(".") : parent);
}

std::optional<std::string> readFileIfExists(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    throw IoError(path, "cannot open for reading");
  }
  if (fs::is_directory(path)) throw IoError(path, "is a directory, expected a file");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw IoError(path, "read failed");
  return s.str();
}

std::string readFile(const fs::path& path) {
  auto content = readFileIfExists(path);
  if (!content) throw IoError(path, "no such file");
  return *content;
}

AppendOutcome appendBlockOnce(const fs::path& path, std::string_view marker, std::string_view text) {
  std::string content = readFileIfExists(path).value_or(std::string());
  if (!marker.empty() && content.find(marker) != std::string::npos) {
    return AppendOutcome::AlreadyPresent;
  }
  content.append(text.data(), text.size());
  writeFileAtomic(path, content);
  return AppendOutcome::Appended;
}

std::string eventMarker(unsigned long long seq) {
  return "<!-- kopt:event " + std::to_string(seq) + " -->";
}

}  // namespace kopt::util
