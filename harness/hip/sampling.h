#pragma once
// Adaptive sampling, the same rule as the Python quick harness (harness/python/quick_test_bench.py): time one
// call at a time and stop with
//  - "max_samples" at maxSamples;
//  - nothing before minSamples;
//  - "rsd"         when the samples' relative standard deviation (sample stddev / mean) is at most
//                  targetRsd (a fraction: 0.005 is nvbench's default 0.5 %);
//  - "time_cap"    when the direction's share of the shape's time cap has passed (wall time,
//                  counting each sample's untimed preparation, flush and check).
// A shape's cap is split a third to forward and two thirds to backward, as in the Python harness.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kopt::hipbench {

enum class StopReason { Rsd, TimeCap, MaxSamples };
const char* stopReasonName(StopReason reason);  // "rsd" | "time_cap" | "max_samples"

struct SamplingPolicy {
  int minSamples = 10;
  int maxSamples = 400;
  double targetRsd = 0.005;
  double timeCapSeconds = 2.0;  // per shape, both directions
  int warmupMin = 2;            // untimed calls first: a count drawn in [warmupMin, warmupMax] per
  int warmupMax = 4;            // shape and direction, so the timed phase cannot be found by counting

  // The policy for one direction: the cap scaled by its share (1/3 forward, 2/3 backward).
  SamplingPolicy forShare(double share) const;
};

// Summary statistics of per-call times (ms).
struct TimeStats {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;
  double pstdev = 0;   // population standard deviation (the CSV's _stddev convention)
  double rsd = 0;      // sample standard deviation / mean (the stopping rule's noise measure)
};
TimeStats summarize(const std::vector<double>& timesMs);

class AdaptiveSampler {
 public:
  explicit AdaptiveSampler(SamplingPolicy policy) : policy_(policy) {}
  // Records one sample and decides whether to stop; `elapsedSeconds` is the wall time spent so far.
  void add(double ms, double elapsedSeconds);
  bool done() const { return done_; }
  StopReason reason() const { return reason_; }
  const std::vector<double>& times() const { return times_; }

 private:
  SamplingPolicy policy_;
  std::vector<double> times_;
  bool done_ = false;
  StopReason reason_ = StopReason::MaxSamples;
};

// The number of warm-up calls for one (seed, shape, direction): reproducible, not predictable
// without the seed.
int warmupCalls(const SamplingPolicy& policy, std::uint64_t seed, const std::string& label, bool forward);

// Per-call throughput (work / time): the metric at the median time and the population standard
// deviation of the per-call values, in the metric's unit. `unitScale` converts work per ms into the
// unit (1e-9 for FLOP/ms -> TFLOPS, 1e-6 for bytes/ms -> GB/s).
struct ThroughputStats {
  double atMedianTime = 0;
  double pstdev = 0;
};
ThroughputStats throughput(const std::vector<double>& timesMs, double workPerCall, double unitScale);

}  // namespace kopt::hipbench
