#include "harness/hip/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kopt::hipbench {

const char* stopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::Rsd: return "rsd";
    case StopReason::TimeCap: return "time_cap";
    case StopReason::MaxSamples: break;
  }
  return "max_samples";
}

SamplingPolicy SamplingPolicy::forShare(double share) const {
  SamplingPolicy p = *this;
  p.timeCapSeconds = timeCapSeconds * share;
  return p;
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
  s.rsd = (s.count >= 2 && s.mean > 0) ? std::sqrt(sq / static_cast<double>(s.count - 1)) / s.mean
                                       : std::numeric_limits<double>::infinity();
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
  if (n < policy_.minSamples) return;
  if (summarize(times_).rsd <= policy_.targetRsd) {
    done_ = true;
    reason_ = StopReason::Rsd;
    return;
  }
  if (elapsedSeconds >= policy_.timeCapSeconds) {
    done_ = true;
    reason_ = StopReason::TimeCap;
  }
}

int warmupCalls(const SamplingPolicy& policy, std::uint64_t seed, const std::string& label, bool forward) {
  const int lo = std::max(0, policy.warmupMin);
  const int hi = std::max(lo, policy.warmupMax);
  std::uint64_t h = 0xcbf29ce484222325ull ^ seed;
  for (unsigned char c : label) h = (h ^ c) * 0x100000001b3ull;
  h = (h ^ (forward ? 0x66u : 0x62u)) * 0x100000001b3ull;
  h ^= h >> 29;
  return lo + static_cast<int>(h % static_cast<std::uint64_t>(hi - lo + 1));
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
