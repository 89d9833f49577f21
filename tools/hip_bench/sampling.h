#pragma once
// Adaptive sampling: time one call at a time until the estimate is precise enough or a cap is hit.
// Stops with
//  - "rsd"         after at least minSamples (and 3), when the samples' relative standard deviation is at
//                  most targetRsdPct, or the relative standard error of their mean is at most
//                  targetRsePct (the nvbench and GPU MODE rules: a noisy shape stops on the
//                  second once it has enough samples for a precise mean);
//  - "time_cap"    when timeCapSeconds of wall time went by (counting the untimed preparation,
//                  flush and checks of each sample) and at least 3 samples exist;
//  - "max_samples" at maxSamples.
#include <cstddef>
#include <string>
#include <vector>

namespace kopt::hipbench {

enum class StopReason { Rsd, TimeCap, MaxSamples };
const char* stopReasonName(StopReason reason);  // "rsd" | "time_cap" | "max_samples"

struct SamplingPolicy {
  int minSamples = 10;
  int maxSamples = 500;
  double targetRsdPct = 0.5;
  double targetRsePct = 0.1;
  double timeCapSeconds = 2.0;
  int warmupCalls = 2;  // untimed calls before the first sample
};

// Summary statistics of per-call times (ms).
struct TimeStats {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;
  double pstdev = 0;  // population standard deviation
  double rsdPct() const { return mean > 0 ? 100.0 * pstdev / mean : 0.0; }
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

// Per-sample throughput (work / time) and its population standard deviation: the `_stddev`
// columns are the spread of the metric itself, in the metric's unit. `unitScale` converts
// work-per-ms into the unit (1e-9 for FLOP/ms -> TFLOPS, 1e-6 for bytes/ms -> GB/s).
struct ThroughputStats {
  double atMedianTime = 0;  // work / median time: the reported metric
  double pstdev = 0;
};
ThroughputStats throughput(const std::vector<double>& timesMs, double workPerCall, double unitScale);

}  // namespace kopt::hipbench
