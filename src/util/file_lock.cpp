#include "util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/atomic_file.h"

namespace kopt::util {
namespace fs = std::filesystem;

namespace {

int openLockFile(const fs::path& lockPath) {
  if (lockPath.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(lockPath.parent_path(), ec);
    if (ec) throw IoError(lockPath.parent_path(), "cannot create directory: " + ec.message());
  }
  int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError(lockPath, std::string("cannot open lock file: ") + std::strerror(errno));
  return fd;
}

}  // namespace

FileLock FileLock::acquire(const fs::path& lockPath, Mode mode) {
  int fd = openLockFile(lockPath);
  int op = mode == Mode::Exclusive ? LOCK_EX : LOCK_SH;
  while (::flock(fd, op) != 0) {
    if (errno == EINTR) continue;
    std::string why = std::strerror(errno);
    ::close(fd);
    throw IoError(lockPath, "flock failed: " + why);
  }
  return FileLock(fd);
}

std::optional<FileLock> FileLock::tryAcquire(const fs::path& lockPath, Mode mode) {
  int fd = openLockFile(lockPath);
  int op = (mode == Mode::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  while (::flock(fd, op) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd);
    if (saved == EWOULDBLOCK) return std::nullopt;
    throw IoError(lockPath, std::string("flock failed: ") + std::strerror(saved));
  }
  return FileLock(fd);
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace kopt::util
