#include "harness/hip/launch_cover_policy.h"

#include <doctest/doctest.h>

using kopt::hipbench::launchCoverMs;
using kopt::hipbench::LaunchCoverPolicy;

TEST_CASE("the first spin is the policy's, before any queuing time is known") {
  CHECK(launchCoverMs({}) == doctest::Approx(0.2));
  LaunchCoverPolicy p;
  p.firstMs = 0.5;
  CHECK(launchCoverMs({}, p) == doctest::Approx(0.5));
}

TEST_CASE("the spin covers the median queuing time with the margin, so one stalled call does not stretch it") {
  CHECK(launchCoverMs({0.010, 0.012, 3.0}) == doctest::Approx(0.02 + 2.0 * 0.012));
  CHECK(launchCoverMs({0.010, 0.030}) == doctest::Approx(0.02 + 2.0 * 0.030));  // the upper median
  CHECK(launchCoverMs({0.0}) == doctest::Approx(0.02));                          // at least the floor
}

TEST_CASE("a host that takes long to queue gets at most the cap") {
  CHECK(launchCoverMs({4.0, 4.0, 4.0}) == doctest::Approx(5.0));
}
