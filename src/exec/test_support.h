#pragma once
// Helpers shared by the exec layer's tests (header-only, included only from *_test.cpp).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include "exec/executor.h"

namespace kopt::exec::testing {

// A fresh directory per test case, removed at the end.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("kopt_exec_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// `sh -c script` writing its output to <dir>/out.txt, with a limit that only bounds a broken test.
inline CommandSpec shellCommand(const TempDir& dir, const std::string& script) {
  CommandSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.stdoutPath = dir / "out.txt";
  spec.timeout = std::chrono::seconds(60);
  return spec;
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeFile(const std::filesystem::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
}

// Waits for a condition that another process or thread makes true; `limit` only bounds a broken
// test, it is not a timing assertion.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// doctest finds our `const char* toString(Enum)` by ADL and then cannot print the enum (it adds
// two const char*); compare the names instead, which also reads better in a failure.
template <typename Enum>
std::string str(Enum value) {
  return toString(value);
}

// The pid a test script wrote into a file (0 when the file is missing or empty).
inline pid_t pidFromFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

}  // namespace kopt::exec::testing
