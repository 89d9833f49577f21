#include "harness/hip/gpu/device_context.h"

#include "harness/hip/gpu/hip_check.h"

namespace kopt::hipbench {

DeviceContext DeviceContext::current() {
  DeviceContext ctx;
  int count = 0;
  KOPT_HIP_CHECK(hipGetDeviceCount(&count));
  if (count == 0) throw std::runtime_error("no GPU device visible to the runtime");
  KOPT_HIP_CHECK(hipGetDevice(&ctx.device));
  hipDeviceProp_t prop;
  KOPT_HIP_CHECK(hipGetDeviceProperties(&prop, ctx.device));
  ctx.name = prop.name;
  ctx.arch = kopt_hip::archName(prop);
  ctx.computeUnits = prop.multiProcessorCount;
  ctx.l2Bytes = static_cast<std::uint64_t>(kopt_hip::l2CacheBytes(ctx.device));
  size_t freeBytes = 0, totalBytes = 0;
  KOPT_HIP_CHECK(hipMemGetInfo(&freeBytes, &totalBytes));
  ctx.freeBytes = freeBytes;
#if defined(KOPT_HIP_PLATFORM_AMD)
  ctx.amd = true;
#endif
  return ctx;
}

}  // namespace kopt::hipbench
