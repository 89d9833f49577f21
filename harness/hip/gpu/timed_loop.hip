#include "harness/hip/gpu/timed_loop.h"

#include <chrono>

#include "harness/hip/gpu/launch_cover.h"

namespace kopt::hipbench {

namespace {
class Events {
 public:
  Events() {
    KOPT_HIP_CHECK(hipEventCreate(&start_));
    KOPT_HIP_CHECK(hipEventCreate(&stop_));
  }
  ~Events() {
    hipEventDestroy(start_);
    hipEventDestroy(stop_);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  hipEvent_t start_ = nullptr;
  hipEvent_t stop_ = nullptr;
};

// One per process, calibrated at the first timed direction (not in --check-only runs).
LaunchCover& launchCover() {
  static LaunchCover cover;
  return cover;
}
}  // namespace

DirectionTiming timeAdaptive(const TimedCall& call, const SamplingPolicy& policy, L2Flusher& flusher, double workPerCall,
                             int warmups, bool coverLaunch) {
  Events events;
  LaunchCover* cover = coverLaunch ? &launchCover() : nullptr;
  // Warm-up: module load, first-touch and clock ramp stay out of the samples. Sample indices are
  // negative here so prepare() can still give every call its own inputs.
  for (int w = 0; w < warmups; ++w) {
    call.prepare(-1 - w);
    flusher.flush();
    call.launch();
    KOPT_HIP_CHECK_LAUNCH();
    KOPT_HIP_CHECK(hipDeviceSynchronize());
  }
  AdaptiveSampler sampler(policy);
  const auto begin = std::chrono::steady_clock::now();
  for (int sample = 0; !sampler.done(); ++sample) {
    call.prepare(sample);
    KOPT_HIP_CHECK(hipDeviceSynchronize());  // the device idle: the host is ahead from here
    const auto hostStart = std::chrono::steady_clock::now();
    if (cover) cover->spin();
    flusher.flush();
    KOPT_HIP_CHECK(hipEventRecord(events.start_, nullptr));
    call.launch();
    KOPT_HIP_CHECK_LAUNCH();
    KOPT_HIP_CHECK(hipEventRecord(events.stop_, nullptr));
    if (cover) {
      cover->noteQueued(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - hostStart).count());
    }
    KOPT_HIP_CHECK(hipDeviceSynchronize());
    const double hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - hostStart).count();
    float ms = 0;
    KOPT_HIP_CHECK(hipEventElapsedTime(&ms, events.start_, events.stop_));
    // Both events were recorded inside this host window, synchronized on both sides: a device time
    // longer than the wall time around it means the timer was tampered with (the Python harness's rule).
    if (ms > hostMs * 1.05 + 0.05) {
      throw CheckFailure("device-event time " + std::to_string(ms) + " ms exceeds the host wall time " +
                         std::to_string(hostMs) + " ms around the same call (sample " + std::to_string(sample) + ")");
    }
    if (call.verify) call.verify(sample);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    sampler.add(static_cast<double>(ms), elapsed);
  }
  DirectionTiming timing;
  timing.timesMs = sampler.times();
  timing.stop = sampler.reason();
  timing.workPerCall = workPerCall;
  return timing;
}

}  // namespace kopt::hipbench
