#pragma once
// Keeps the device busy while the host queues one timed call. Without it the start event executes
// at once on an idle device and the call's own launch path (the host API, a few microseconds) is
// inside its time: the harness synchronised and then recorded the start event, which is how the
// measurement review found both harnesses reading host time (docs/gpu-validation.md). With a spin queued first,
// and the flush, the start event, the launch and the stop event queued behind it, the start event
// executes with the call already queued, as it would in a queue of real work.
#include <cstddef>
#include <vector>

#include "device/hip_portability.h"
#include "harness/hip/launch_cover_policy.h"

namespace kopt::hipbench {

class LaunchCover {
 public:
  // Measures the spin kernel's clock cycles per millisecond once (an event-timed spin).
  LaunchCover();

  // Queues the spin on `stream` (launchCoverMs of the recent queuing times).
  void spin(hipStream_t stream = nullptr);

  // The host's time from spin() to the call's stop event, in ms: sizes the next spins.
  void noteQueued(double hostMs);

  double spinMs() const { return launchCoverMs(recent_); }

 private:
  static constexpr std::size_t kRecent = 16;
  double cyclesPerMs_ = 0;
  std::vector<double> recent_;  // the last kRecent queuing times, a ring
  std::size_t next_ = 0;
};

}  // namespace kopt::hipbench
