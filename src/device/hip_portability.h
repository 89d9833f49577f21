#pragma once
// kopt's HIP portability header: the HIP runtime API subset that kopt's kernels (kernels/hip) and
// native bench harness (harness/hip) use, on both vendors.
//
//  - AMD (hipcc, __HIP_PLATFORM_AMD__): the real <hip/hip_runtime.h>.
//  - NVIDIA (nvcc, __CUDACC__): the same names mapped onto the CUDA runtime. Debian's HIP 5.2
//    NVIDIA headers do not compile against CUDA 13, so the project carries this small mapping
//    instead of depending on them. Only what is used is mapped; add a name here before using it.
//
// CUDA 13 removed cudaDeviceProp::clockRate and ::memoryClockRate; read clocks with
// kopt_hip::clockRateKHz() / memoryClockRateKHz(), which use the attribute query on both vendors.
// bf16 values travel as raw uint16_t bits (harness/hip/bf16_bits.h), so no vendor bf16 type
// is needed. Host-only code (the CPU reference, CSV writing) must not include this header: it
// needs a GPU compiler. It is not compiled into the kopt server, which reaches the GPU through dlopen
// (device_runtime.h).

#if defined(__HIP_PLATFORM_AMD__) || (defined(__HIPCC__) && !defined(__CUDACC__))

#include <hip/hip_runtime.h>

#define KOPT_HIP_PLATFORM_AMD 1

#elif defined(__CUDACC__)

#include <cuda_runtime.h>

#define KOPT_HIP_PLATFORM_NVIDIA 1

// Types.
using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
using hipMemcpyKind = cudaMemcpyKind;
using hipFuncAttribute = cudaFuncAttribute;

// Constants.
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorNotSupported cudaErrorNotSupported
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipEventDefault cudaEventDefault
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize

// Device attributes read through hipDeviceGetAttribute (only these are mapped).
#define hipDeviceAttributeClockRate cudaDevAttrClockRate
#define hipDeviceAttributeMemoryClockRate cudaDevAttrMemoryClockRate
#define hipDeviceAttributeMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlockOptin

// Functions: plain renames, so every overload and default argument of the CUDA runtime carries over.
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemGetInfo cudaMemGetInfo
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDriverGetVersion cudaDriverGetVersion

// hipLaunchKernelGGL(kernel, grid, block, sharedBytes, stream, args...) as a triple-chevron launch.
#define hipLaunchKernelGGL(kernel, grid, block, sharedBytes, stream, ...) \
  kernel<<<(grid), (block), (sharedBytes), (stream)>>>(__VA_ARGS__)

#else
#error "hip_portability.h needs a GPU compiler (hipcc or nvcc); host-only code must not include it"
#endif

#include <cstdio>
#include <string>

namespace kopt_hip {

// Clocks in kHz through the attribute query (CUDA 13 dropped the cudaDeviceProp fields).
inline int clockRateKHz(int device) {
  int value = 0;
  return hipDeviceGetAttribute(&value, hipDeviceAttributeClockRate, device) == hipSuccess ? value : 0;
}
inline int memoryClockRateKHz(int device) {
  int value = 0;
  return hipDeviceGetAttribute(&value, hipDeviceAttributeMemoryClockRate, device) == hipSuccess ? value : 0;
}
inline int l2CacheBytes(int device) {
  int value = 0;
  return hipDeviceGetAttribute(&value, hipDeviceAttributeL2CacheSize, device) == hipSuccess ? value : 0;
}

// "sm_90" on NVIDIA, the gcnArchName without feature suffixes ("gfx942") on AMD.
inline std::string archName(const hipDeviceProp_t& prop) {
#if defined(KOPT_HIP_PLATFORM_AMD)
  std::string name = prop.gcnArchName;
  const auto colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(0, colon);
#else
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
#endif
}

// Drops any persisting-L2 lines a previous launch pinned (NVIDIA access-policy windows), so a
// kernel cannot keep its inputs resident across a "cold" measurement. AMD has no equivalent
// runtime control; there the flush buffer alone does the job.
inline hipError_t resetPersistingL2() {
#if defined(KOPT_HIP_PLATFORM_NVIDIA)
  return cudaCtxResetPersistingL2Cache();
#else
  return hipSuccess;
#endif
}

inline const char* platformName() {
#if defined(KOPT_HIP_PLATFORM_AMD)
  return "hip-amd";
#else
  return "hip-on-cuda";
#endif
}

}  // namespace kopt_hip

// Checks a HIP call; on failure prints the call, file and line and returns the error from the
// enclosing function (which must return hipError_t).
#define KOPT_HIP_RETURN_IF_ERROR(call)                                                               \
  do {                                                                                               \
    hipError_t kopt_hip_rc_ = (call);                                                                \
    if (kopt_hip_rc_ != hipSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                      \
                   hipGetErrorString(kopt_hip_rc_));                                                 \
      return kopt_hip_rc_;                                                                           \
    }                                                                                                \
  } while (0)
