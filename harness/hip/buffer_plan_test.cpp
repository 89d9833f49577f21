#include "harness/hip/buffer_plan.h"

#include <doctest/doctest.h>

using namespace kopt::hipbench;

TEST_CASE("the flush covers twice the last-level cache, with per-vendor floors") {
  CHECK(defaultFlushBytes(60ull << 20, false) == (256ull << 20));   // H200: 2 x 60 MiB < 256 MiB
  CHECK(defaultFlushBytes(256ull << 20, false) == (512ull << 20));
  CHECK(defaultFlushBytes(4ull << 20, true) == (512ull << 20));     // MI300X: MALL behind a small L2
}

TEST_CASE("input sets together exceed the cold-cache size, within the budget") {
  const std::uint64_t mib = 1ull << 20;
  CHECK(inputSetsFor(6 * mib, 120 * mib, 100000 * mib) == 20);
  CHECK(inputSetsFor(384 * mib, 120 * mib, 100000 * mib) == 2);     // big sets: two still rotate
  CHECK(inputSetsFor(1 * mib, 120 * mib, 100000 * mib) == 64);      // capped
  CHECK(inputSetsFor(6 * mib, 120 * mib, 30 * mib) == 5);           // budget-limited
  CHECK(inputSetsFor(6 * mib, 120 * mib, 1 * mib) == 2);            // never below two
  CHECK(inputSetsFor(0, 120 * mib, 1 * mib) == 2);
}
