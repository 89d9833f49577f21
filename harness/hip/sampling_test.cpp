#include "harness/hip/sampling.h"

#include <cmath>
#include <set>

#include <doctest/doctest.h>

using namespace kopt::hipbench;

TEST_CASE("summary statistics of per-call times") {
  auto s = summarize({1.0, 2.0, 3.0, 4.0});
  CHECK(s.count == 4);
  CHECK(s.mean == doctest::Approx(2.5));
  CHECK(s.median == doctest::Approx(2.5));
  CHECK(s.pstdev == doctest::Approx(1.118034).epsilon(1e-6));
  CHECK(s.rsd == doctest::Approx(1.290994 / 2.5).epsilon(1e-6));  // sample stddev / mean
  CHECK(summarize({5.0, 1.0, 3.0}).median == doctest::Approx(3.0));
  CHECK(summarize({}).count == 0);
  CHECK(std::isinf(summarize({1.0}).rsd));
}

TEST_CASE("quiet samples stop on rsd at the minimum count, not before") {
  SamplingPolicy policy;
  policy.minSamples = 10;
  AdaptiveSampler sampler(policy);
  for (int i = 0; i < 9; ++i) {
    sampler.add(1.0, 100.0);  // far past the cap, but below the minimum count
    CHECK_FALSE(sampler.done());
  }
  sampler.add(1.0, 100.0);
  CHECK(sampler.done());
  CHECK(sampler.reason() == StopReason::Rsd);
  CHECK(sampler.times().size() == 10);
}

TEST_CASE("noisy samples stop at the time cap once the minimum count is reached") {
  SamplingPolicy policy;
  policy.minSamples = 3;
  policy.timeCapSeconds = 1.0;
  AdaptiveSampler sampler(policy);
  sampler.add(1.0, 0.1);
  sampler.add(2.0, 0.2);
  sampler.add(1.0, 0.3);
  CHECK_FALSE(sampler.done());  // noisy, but time is left
  sampler.add(2.0, 1.5);
  CHECK(sampler.done());
  CHECK(sampler.reason() == StopReason::TimeCap);
}

TEST_CASE("max samples is a hard stop") {
  SamplingPolicy policy;
  policy.minSamples = 1;
  policy.maxSamples = 5;
  policy.timeCapSeconds = 1e9;
  AdaptiveSampler sampler(policy);
  for (int i = 0; i < 5; ++i) sampler.add(1.0 + i, 0.0);
  CHECK(sampler.done());
  CHECK(sampler.reason() == StopReason::MaxSamples);
  CHECK(std::string(stopReasonName(StopReason::TimeCap)) == std::string("time_cap"));
}

TEST_CASE("a shape's time cap is split a third forward, two thirds backward") {
  SamplingPolicy policy;
  policy.timeCapSeconds = 3.0;
  CHECK(policy.forShare(1.0 / 3).timeCapSeconds == doctest::Approx(1.0));
  CHECK(policy.forShare(2.0 / 3).timeCapSeconds == doctest::Approx(2.0));
  CHECK(policy.forShare(1.0 / 3).minSamples == policy.minSamples);
}

TEST_CASE("warm-up counts stay in range, depend on the seed and repeat for the same inputs") {
  SamplingPolicy policy;
  std::set<int> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const int n = warmupCalls(policy, seed, "m4096_n4096_k4096", true);
    CHECK(n >= 2);
    CHECK(n <= 4);
    CHECK(warmupCalls(policy, seed, "m4096_n4096_k4096", true) == n);
    seen.insert(n);
  }
  CHECK(seen.size() == 3);
}

TEST_CASE("throughput is work over the median time, with the per-call spread") {
  // 2e9 FLOP per call at 1, 2 and 4 ms: median 2 ms -> 1 TFLOPS; per call 2, 1, 0.5 TFLOPS.
  auto t = throughput({1.0, 2.0, 4.0}, 2e9, 1e-9);
  CHECK(t.atMedianTime == doctest::Approx(1.0));
  CHECK(t.pstdev == doctest::Approx(0.6236).epsilon(1e-3));
  CHECK(throughput({}, 1.0, 1.0).atMedianTime == 0.0);
}
