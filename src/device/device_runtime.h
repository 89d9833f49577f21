#pragma once
// The seam between kopt and a GPU vendor runtime. The production implementation
// (makeSystemRuntime) loads the vendor libraries at run time: libamdhip64 (the HIP runtime) on
// AMD, libcuda (the CUDA driver API) and libcublas on NVIDIA. Tests use a fake. Nothing here needs
// a GPU toolkit at build time.
//
// Why the CUDA *driver* API on NVIDIA rather than libcudart: libcuda.so.1 is installed with the
// driver wherever an NVIDIA GPU is usable, its C ABI and attribute numbers are frozen, and its
// soname never changes; libcudart's soname changes every major release (.so.12, .so.13) and its
// cudaDeviceProp layout changes with it, which a dlopen caller cannot follow safely. The kernels
// and the native bench harness, which are compiled by nvcc, use the CUDA runtime through the
// project's HIP portability header (hip_portability.h) instead.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/device_info.h"

namespace kopt::device {

struct MeasureOptions {
  std::uint64_t copyBytes = 2ull << 30;  // each of source and destination; capped at 1/4 of free memory
  int matmulSize = 8192;                  // M = N = K of the bf16 matmul
  int warmup = 3;
  int iterations = 20;                    // timed one by one with device events; the median is kept
};

// One measured ceiling: a value, or why there is none.
struct Measurement {
  std::optional<double> value;
  std::string method;  // what was run, e.g. "cuMemcpyDtoDAsync 2 GiB, median of 20" (or the error)
  std::string error;   // empty when value is set
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual DeviceSnapshot snapshot() = 0;
  // Device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written.
  virtual Measurement measureCopyGBps(int device, const MeasureOptions& options) = 0;
  // bf16 x bf16 -> bf16 matmul (fp32 accumulation) through the vendor BLAS, in TFLOPS, on random data.
  virtual Measurement measureMatmulTflops(int device, const MeasureOptions& options) = 0;
};

// AMD (HIP runtime) first, then NVIDIA (CUDA driver). When neither finds a device, the snapshot's
// reason reads "no GPU found: <what each backend said>". The environment variable
// KOPT_DEVICE_BACKEND picks one: "hip", "cuda", "none" (reports no GPU: for tests and for runs
// that must not touch the GPU) or "auto" (the default).
std::unique_ptr<DeviceRuntime> makeSystemRuntime();

// Asks `backends` in order; the first that sees a device answers, and measures.
std::unique_ptr<DeviceRuntime> makeCompositeRuntime(std::vector<std::unique_ptr<DeviceRuntime>> backends);

// The per-vendor backends, exposed for `kopt doctor`-style diagnostics and for tests that want
// to see one backend's answer.
std::unique_ptr<DeviceRuntime> makeCudaDriverRuntime();
std::unique_ptr<DeviceRuntime> makeHipRuntime();

}  // namespace kopt::device
