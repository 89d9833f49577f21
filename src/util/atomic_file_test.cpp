#include "util/atomic_file.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

using namespace kopt::util;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("kopt_atomic_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};
std::size_t countEntries(const fs::path& dir) {
  std::size_t n = 0;
  for (auto& e : fs::directory_iterator(dir)) (void)e, ++n;
  return n;
}
}  // namespace

TEST_CASE("writeFileAtomic replaces content, creates parents and leaves no temp file") {
  TempDir t;
  auto file = t.path / "a" / "b" / "state.json";
  writeFileAtomic(file, "one");
  CHECK(readFile(file) == "one");
  writeFileAtomic(file, "two, longer");
  CHECK(readFile(file) == "two, longer");
  CHECK(countEntries(file.parent_path()) == 1);
}

TEST_CASE("writeFileAtomic into an unwritable place throws IoError naming the path") {
  TempDir t;
  auto blocker = t.path / "file";
  writeFileAtomic(blocker, "x");
  // A regular file where a directory is needed.
  try {
    writeFileAtomic(blocker / "child.txt", "y");
    FAIL("expected IoError");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("file") != std::string::npos);
  }
  CHECK(readFile(blocker) == "x");
}

TEST_CASE("readFileIfExists distinguishes missing from present") {
  TempDir t;
  CHECK_FALSE(readFileIfExists(t.path / "nope").has_value());
  CHECK_THROWS_AS(readFile(t.path / "nope"), IoError);
  CHECK_THROWS_AS(readFileIfExists(t.path), IoError);  // a directory
}

TEST_CASE("appendBlockOnce appends once per marker and keeps earlier content") {
  TempDir t;
  auto log = t.path / "logs" / "optimize.md";
  auto m1 = eventMarker(1), m2 = eventMarker(2);
  CHECK(m1 == "<!-- kopt:event 1 -->");
  CHECK(appendBlockOnce(log, m1, m1 + "\nfirst\n") == AppendOutcome::Appended);
  CHECK(appendBlockOnce(log, m1, m1 + "\nfirst again\n") == AppendOutcome::AlreadyPresent);
  CHECK(appendBlockOnce(log, m2, m2 + "\nsecond\n") == AppendOutcome::Appended);
  CHECK(readFile(log) == m1 + "\nfirst\n" + m2 + "\nsecond\n");
}

TEST_CASE("eventMarker of seq 1 is not found inside the marker of seq 12") {
  TempDir t;
  auto log = t.path / "x.md";
  appendBlockOnce(log, eventMarker(12), eventMarker(12) + "\n");
  CHECK(appendBlockOnce(log, eventMarker(1), eventMarker(1) + "\n") == AppendOutcome::Appended);
}
