#pragma once
// An advisory whole-file lock (flock) held for the lifetime of the object. Used for the shared
// tips file (several campaigns may append at once) and the ledger (one writer per campaign).
// flock locks belong to the open file description, so two FileLock objects in the same process
// on the same path exclude each other too.
#include <filesystem>
#include <optional>

namespace kopt::util {

class FileLock {
 public:
  enum class Mode { Shared, Exclusive };
  // Blocks until the lock is held. Creates the lock file (and its parent dirs) when missing.
  // Throws IoError.
  static FileLock acquire(const std::filesystem::path& lockPath, Mode mode = Mode::Exclusive);
  // nullopt when someone else holds a conflicting lock. Throws IoError on other failures.
  static std::optional<FileLock> tryAcquire(const std::filesystem::path& lockPath,
                                            Mode mode = Mode::Exclusive);

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  void release();
  bool held() const { return fd_ >= 0; }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace kopt::util
