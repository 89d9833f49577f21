#pragma once
// One direction of one shape, timed one call at a time:
//   prepare(sample)  fresh inputs into the sample's input set, poison its outputs   (untimed)
//   device-wide synchronize, then queued without a host wait:
//   spin             the device busy while the host queues the rest (launch_cover.h)
//   flush            reset persisting L2, overwrite >= 2x the last-level cache       (untimed)
//   event start; launch(); event stop; device-wide synchronize                       (timed: events)
//   the event time must not exceed the host wall time around it (else: CheckFailure)
//   verify(sample)   spot-check the output against the host reference; throws CheckFailure
// The events sit on the legacy default stream, which waits for work on every blocking stream, and
// the device-wide synchronize before reading them means work left running on another stream
// delays the next sample instead of vanishing.
#include <functional>

#include "harness/hip/bench_driver.h"
#include "harness/hip/gpu/l2_flush.h"
#include "harness/hip/sampling.h"

namespace kopt::hipbench {

struct TimedCall {
  std::function<void(int sample)> prepare;
  std::function<void()> launch;
  std::function<void(int sample)> verify;
};

// `warmups` untimed calls first (see warmupCalls in sampling.h); `policy` is already the direction's share.
// `coverLaunch` false (--no-launch-cover) leaves the device idle when the start event executes, as
// before the cover existed: only for measuring what the cover changes.
DirectionTiming timeAdaptive(const TimedCall& call, const SamplingPolicy& policy, L2Flusher& flusher, double workPerCall,
                             int warmups, bool coverLaunch = true);

}  // namespace kopt::hipbench
