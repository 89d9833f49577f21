#include "hip_bench/sampling.h"

#include <algorithm>
#include <cmath>

namespace kopt::hipbench {

const char* stopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::Rsd: return "rsd";
    case StopReason::TimeCap: return "time_cap";
    case StopReason::MaxSamples: break;
  }
  return "max_samples";
}

TimeStats summarize(const std::vector<double>& timesMs) {
  TimeStats s;
  s.count = timesMs.size();
  if (timesMs.empty()) return s;
  double sum = 0;
  for (double t : timesMs) sum += t;
  s.mean = sum / static_cast<double>(s.count);
  double sq = 0;
  for (double t : timesMs) sq += (t - s.mean) * (t - s.mean);
  s.pstdev = std::sqrt(sq / static_cast<double>(s.count));
  std::vector<double> sorted = timesMs;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = s.count / 2;
  s.median = (s.count % 2 == 1) ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
  return s;
}

void AdaptiveSampler::add(double ms, double elapsedSeconds) {
  if (done_) return;
  times_.push_back(ms);
  const int n = static_cast<int>(times_.size());
  if (n >= policy_.maxSamples) {
    done_ = true;
    reason_ = StopReason::MaxSamples;
    return;
  }
  // A spread needs a few samples to mean anything: never fewer than three.
  if (n >= policy_.minSamples && n >= 3) {
    const TimeStats s = summarize(times_);
    const double rse = s.mean > 0 ? 100.0 * (s.pstdev / std::sqrt(static_cast<double>(n))) / s.mean : 0.0;
    if (s.rsdPct() <= policy_.targetRsdPct || rse <= policy_.targetRsePct) {
      done_ = true;
      reason_ = StopReason::Rsd;
      return;
    }
  }
  if (elapsedSeconds >= policy_.timeCapSeconds && n >= 3) {
    done_ = true;
    reason_ = StopReason::TimeCap;
  }
}

ThroughputStats throughput(const std::vector<double>& timesMs, double workPerCall, double unitScale) {
  ThroughputStats out;
  if (timesMs.empty()) return out;
  const TimeStats s = summarize(timesMs);
  out.atMedianTime = s.median > 0 ? workPerCall / s.median * unitScale : 0.0;
  std::vector<double> rates;
  rates.reserve(timesMs.size());
  for (double t : timesMs) rates.push_back(t > 0 ? workPerCall / t * unitScale : 0.0);
  out.pstdev = summarize(rates).pstdev;
  return out;
}

}  // namespace kopt::hipbench
