#include "mcp/head_readers.h"

#include <doctest/doctest.h>

#include <vector>

namespace kopt::mcp {

TEST_CASE("head readers: a full registry evicts the reader that has waited longest") {
  std::vector<int> woken;
  HeadReaders readers(2, [&](int fd) { woken.push_back(fd); });
  const auto a = readers.begin(10);
  readers.begin(11);
  CHECK(woken.empty());
  readers.begin(12);  // full: 10 has read its head the longest
  CHECK(woken == std::vector<int>{10});
  CHECK(readers.size() == 2);
  CHECK(readers.evicted() == 1);
  readers.done(a);  // the evicted one finishing later changes nothing
  CHECK(readers.size() == 2);
}

TEST_CASE("head readers: a reader that finished its head is never evicted") {
  std::vector<int> woken;
  HeadReaders readers(2, [&](int fd) { woken.push_back(fd); });
  const auto a = readers.begin(10);
  readers.begin(11);
  readers.done(a);
  readers.begin(12);
  CHECK(woken.empty());
  readers.begin(13);
  CHECK(woken == std::vector<int>{11});
}

TEST_CASE("head readers: a capacity of 0 is taken as 1") {
  int woken = 0;
  HeadReaders readers(0, [&](int) { ++woken; });
  readers.begin(1);
  readers.begin(2);
  CHECK(woken == 1);
  CHECK(readers.size() == 1);
}

}  // namespace kopt::mcp
