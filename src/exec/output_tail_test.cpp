#include "exec/output_tail.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>

#include "exec/test_support.h"

namespace fs = std::filesystem;
using kopt::exec::fileSize;
using kopt::exec::lastCompleteLine;

namespace {
// One directory for the whole test binary's run of this file, removed at exit.
const kopt::exec::testing::TempDir& tempDir() {
  static const kopt::exec::testing::TempDir dir("output_tail");
  return dir;
}

fs::path writeTemp(const std::string& name, const std::string& content) {
  const fs::path p = tempDir() / name;
  std::ofstream(p, std::ios::binary) << content;
  return p;
}
}  // namespace

TEST_CASE("fileSize is 0 for a missing file and the byte count otherwise") {
  CHECK(fileSize("/nonexistent/kopt/file") == 0);
  CHECK(fileSize(writeTemp("size", "12345")) == 5);
}

TEST_CASE("lastCompleteLine ignores a partial last line and strips CR") {
  CHECK(lastCompleteLine(writeTemp("a", "one\ntwo\nthr")) == "two");
  CHECK(lastCompleteLine(writeTemp("b", "one\r\ntwo\r\n")) == "two");
  CHECK(lastCompleteLine(writeTemp("c", "only\n")) == "only");
  CHECK(lastCompleteLine(writeTemp("d", "partial")) == "");
  CHECK(lastCompleteLine(writeTemp("e", "")) == "");
  CHECK(lastCompleteLine("/nonexistent/kopt/file") == "");
  CHECK(lastCompleteLine(writeTemp("f", "x\n\n")) == "");
}

TEST_CASE("lastCompleteLine trims long lines and reads only the tail of big files") {
  CHECK(lastCompleteLine(writeTemp("g", std::string(500, 'x') + "\n")).size() == 200);
  CHECK(lastCompleteLine(writeTemp("h", "abcdef\n"), 3) == "abc");
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "row " + std::to_string(i) + "\n";
  CHECK(lastCompleteLine(writeTemp("i", big)) == "row 99999");
}

TEST_CASE("tailText returns the end of the file") {
  CHECK(kopt::exec::tailText(writeTemp("t1", "abcdef"), 3) == "def");
  CHECK(kopt::exec::tailText(writeTemp("t2", "ab"), 3) == "ab");
  CHECK(kopt::exec::tailText("/nonexistent/kopt/file").empty());
}
