#include "hip_bench/sampling.h"

#include <doctest/doctest.h>

using namespace kopt::hipbench;

TEST_CASE("summary statistics of per-call times") {
  auto s = summarize({1.0, 2.0, 3.0, 4.0});
  CHECK(s.count == 4);
  CHECK(s.mean == doctest::Approx(2.5));
  CHECK(s.median == doctest::Approx(2.5));
  CHECK(s.pstdev == doctest::Approx(1.118034).epsilon(1e-6));
  CHECK(summarize({5.0, 1.0, 3.0}).median == doctest::Approx(3.0));
  CHECK(summarize({}).count == 0);
}

TEST_CASE("quiet samples stop on the noise target after the minimum count") {
  SamplingPolicy policy;
  policy.minSamples = 10;
  AdaptiveSampler sampler(policy);
  for (int i = 0; i < 9; ++i) {
    sampler.add(1.0, 0.01 * i);
    CHECK_FALSE(sampler.done());
  }
  sampler.add(1.0, 0.1);
  CHECK(sampler.done());
  CHECK(sampler.reason() == StopReason::Rsd);
  CHECK(sampler.times().size() == 10);
}

TEST_CASE("noisy samples stop at the time cap, but only with at least three samples") {
  SamplingPolicy policy;
  policy.minSamples = 10;
  policy.timeCapSeconds = 1.0;
  policy.targetRsePct = 0.0001;
  AdaptiveSampler sampler(policy);
  sampler.add(1.0, 5.0);
  sampler.add(2.0, 6.0);
  CHECK_FALSE(sampler.done());  // over the cap but only two samples
  sampler.add(1.0, 7.0);
  CHECK(sampler.done());
  CHECK(sampler.reason() == StopReason::TimeCap);
}

TEST_CASE("a noisy shape with enough samples stops when its mean is precise") {
  SamplingPolicy policy;
  policy.minSamples = 10;
  policy.targetRsdPct = 0.5;   // samples alternate 1.0 / 1.1: RSD ~4.8%, never met
  policy.targetRsePct = 1.0;   // the mean's standard error falls under 1% at n >= 23
  policy.timeCapSeconds = 1e9;
  AdaptiveSampler sampler(policy);
  int n = 0;
  while (!sampler.done() && n < 1000) sampler.add((n++ % 2) ? 1.1 : 1.0, 0.0);
  CHECK(sampler.reason() == StopReason::Rsd);
  CHECK(n >= 20);
  CHECK(n <= 30);
}

TEST_CASE("max samples is a hard stop") {
  SamplingPolicy policy;
  policy.minSamples = 1;
  policy.maxSamples = 5;
  policy.targetRsdPct = 1e-9;
  policy.targetRsePct = 1e-9;
  policy.timeCapSeconds = 1e9;
  AdaptiveSampler sampler(policy);
  for (int i = 0; i < 5; ++i) sampler.add(1.0 + i, 0.0);
  CHECK(sampler.done());
  CHECK(sampler.reason() == StopReason::MaxSamples);
  CHECK(std::string(stopReasonName(StopReason::TimeCap)) == std::string("time_cap"));
}

TEST_CASE("throughput is work over the median time, with the per-sample spread") {
  // 2e9 FLOP per call at 1, 2 and 4 ms: median 2 ms -> 1 TFLOPS; per-sample 2, 1, 0.5 TFLOPS.
  auto t = throughput({1.0, 2.0, 4.0}, 2e9, 1e-9);
  CHECK(t.atMedianTime == doctest::Approx(1.0));
  CHECK(t.pstdev == doctest::Approx(0.6236).epsilon(1e-3));
  CHECK(throughput({}, 1.0, 1.0).atMedianTime == 0.0);
}
