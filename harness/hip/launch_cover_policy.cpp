#include "harness/hip/launch_cover_policy.h"

#include <algorithm>

namespace kopt::hipbench {

double launchCoverMs(std::vector<double> recentQueuedMs, const LaunchCoverPolicy& policy) {
  if (recentQueuedMs.empty()) return policy.firstMs;
  const auto mid = recentQueuedMs.begin() + static_cast<std::ptrdiff_t>(recentQueuedMs.size() / 2);
  std::nth_element(recentQueuedMs.begin(), mid, recentQueuedMs.end());
  // The upper median: with two values the longer one, so a single fast call cannot halve the cover.
  return std::min(policy.capMs, policy.floorMs + policy.margin * std::max(0.0, *mid));
}

}  // namespace kopt::hipbench
