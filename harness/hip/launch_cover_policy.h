#pragma once
// How long the spin in front of a timed call lasts (gpu/launch_cover.h): long enough that the host
// has queued the flush, the start event, the call and the stop event before the device reaches
// them. Host-only, so it is tested without a GPU.
#include <vector>

namespace kopt::hipbench {

struct LaunchCoverPolicy {
  double firstMs = 0.2;  // before any call's queuing time is known
  double floorMs = 0.02;
  double capMs = 5.0;    // a host stalled for longer is not worth a longer spin on every call
  double margin = 2.0;   // x the median queuing time: one descheduled call must not uncover the next
};

// margin x median(recentQueuedMs) + floorMs, at most capMs; firstMs when the list is empty.
double launchCoverMs(std::vector<double> recentQueuedMs, const LaunchCoverPolicy& policy = {});

}  // namespace kopt::hipbench
