#include "harness/hip/gpu/launch_cover.h"

#include "harness/hip/gpu/hip_check.h"

namespace kopt::hipbench {

namespace {
__global__ void spinKernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

constexpr long long kCalibrationCycles = 2'000'000;
}  // namespace

LaunchCover::LaunchCover() {
  hipEvent_t start = nullptr, stop = nullptr;
  KOPT_HIP_CHECK(hipEventCreate(&start));
  KOPT_HIP_CHECK(hipEventCreate(&stop));
  spinKernel<<<1, 1>>>(1000);  // loads the module outside the measurement
  KOPT_HIP_CHECK_LAUNCH();
  KOPT_HIP_CHECK(hipDeviceSynchronize());
  KOPT_HIP_CHECK(hipEventRecord(start, nullptr));
  spinKernel<<<1, 1>>>(kCalibrationCycles);
  KOPT_HIP_CHECK_LAUNCH();
  KOPT_HIP_CHECK(hipEventRecord(stop, nullptr));
  KOPT_HIP_CHECK(hipDeviceSynchronize());
  float ms = 0;
  KOPT_HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  hipEventDestroy(start);
  hipEventDestroy(stop);
  cyclesPerMs_ = ms > 0 ? kCalibrationCycles / static_cast<double>(ms) : 0.0;
}

void LaunchCover::spin(hipStream_t stream) {
  const auto cycles = static_cast<long long>(spinMs() * cyclesPerMs_);
  if (cycles <= 0) return;
  spinKernel<<<1, 1, 0, stream>>>(cycles);
  KOPT_HIP_CHECK_LAUNCH();
}

void LaunchCover::noteQueued(double hostMs) {
  if (recent_.size() < kRecent) {
    recent_.push_back(hostMs);
  } else {
    recent_[next_] = hostMs;
    next_ = (next_ + 1) % kRecent;
  }
}

}  // namespace kopt::hipbench
