#include "util/file_lock.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "util/atomic_file.h"

using namespace kopt::util;
namespace fs = std::filesystem;

TEST_CASE("an exclusive lock excludes a second holder until released") {
  auto dir = fs::temp_directory_path() / ("kopt_lock_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto lockPath = dir / "sub" / "tips.lock";
  {
    FileLock first = FileLock::acquire(lockPath);
    CHECK(first.held());
    CHECK(fs::exists(lockPath));
    CHECK_FALSE(FileLock::tryAcquire(lockPath).has_value());
    CHECK_FALSE(FileLock::tryAcquire(lockPath, FileLock::Mode::Shared).has_value());
    // Another process sees it held too.
    pid_t pid = ::fork();
    if (pid == 0) _exit(FileLock::tryAcquire(lockPath).has_value() ? 1 : 0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    FileLock moved = std::move(first);
    CHECK_FALSE(first.held());
    CHECK(moved.held());
  }
  auto again = FileLock::tryAcquire(lockPath);
  CHECK(again.has_value());
  fs::remove_all(dir);
}

TEST_CASE("shared locks coexist and block an exclusive one") {
  auto dir = fs::temp_directory_path() / ("kopt_lock2_" + std::to_string(::getpid()));
  auto lockPath = dir / "l";
  auto a = FileLock::acquire(lockPath, FileLock::Mode::Shared);
  auto b = FileLock::tryAcquire(lockPath, FileLock::Mode::Shared);
  CHECK(b.has_value());
  CHECK_FALSE(FileLock::tryAcquire(lockPath, FileLock::Mode::Exclusive).has_value());
  a.release();
  b->release();
  CHECK(FileLock::tryAcquire(lockPath, FileLock::Mode::Exclusive).has_value());
  fs::remove_all(dir);
}
