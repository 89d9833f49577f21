#pragma once
// A CPU emulation of the HIP API subset in src/device/hip_portability.h, for tests only. It lets
// CI, which has no GPU, run the sample kernels and the native benches end to end: every thread of
// a block is a host thread, __syncthreads is a barrier, blocks run one after another, device
// memory is host memory. It checks indexing, tiling, tails, barriers and the harness's flow; it
// says nothing about speed, warps or the GPU memory model beyond block barriers.
//
// Built by harness/hip/emulation/CMakeLists.txt, which puts this directory in front of src/ on
// the include path and rewrites `kernel<<<grid, block, shared, stream>>>(args)` into
// `emuLaunch(kernel, grid, block, shared, stream)(args)` (the only syntax a C++ compiler lacks).
#include <pthread.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define KOPT_HIP_PLATFORM_EMULATED 1

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __launch_bounds__(...)
#define __restrict__ __restrict

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline float rsqrtf(float v) { return 1.0f / std::sqrt(v); }
using std::fmaf;

namespace kopt_emu {
inline thread_local dim3 threadIdx_;
inline thread_local dim3 blockIdx_;
inline dim3 blockDim_, gridDim_;
inline pthread_barrier_t barrier_;
}  // namespace kopt_emu
#define threadIdx (::kopt_emu::threadIdx_)
#define blockIdx (::kopt_emu::blockIdx_)
#define blockDim (::kopt_emu::blockDim_)
#define gridDim (::kopt_emu::gridDim_)
inline void __syncthreads() { pthread_barrier_wait(&::kopt_emu::barrier_); }
// The device clock counter: host nanoseconds (the launch cover's spin calibrates against events).
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorMemoryAllocation = 2, hipErrorNotSupported = 801 };
using hipStream_t = void*;
using hipEvent_t = void*;
enum hipMemcpyKind { hipMemcpyHostToHost, hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice, hipMemcpyDefault };
enum hipDeviceAttribute_t {
  hipDeviceAttributeClockRate,
  hipDeviceAttributeMemoryClockRate,
  hipDeviceAttributeMemoryBusWidth,
  hipDeviceAttributeL2CacheSize,
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeMaxSharedMemoryPerBlock
};
struct hipDeviceProp_t {
  char name[256];
  int multiProcessorCount;
  int major, minor;
  size_t totalGlobalMem;
  int l2CacheSize;
};

namespace kopt_emu {
constexpr int kComputeUnits = 4;
constexpr int kL2Bytes = 1 << 20;
// Runs every block of a launch, one after another, on one host thread per GPU thread: each worker
// plays its thread in every block, and a barrier at the end of each block keeps a block's shared
// memory untouched until all of its threads are done.
template <typename Kernel>
auto launch(Kernel kernel, dim3 grid, dim3 block) {
  return [=](auto... args) {
    const unsigned threads = block.x * block.y * block.z;
    gridDim_ = grid;
    blockDim_ = block;
    pthread_barrier_init(&barrier_, nullptr, threads);
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([=] {
        threadIdx_ = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
        for (unsigned z = 0; z < grid.z; ++z)
          for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
              blockIdx_ = dim3(x, y, z);
              kernel(args...);
              pthread_barrier_wait(&barrier_);
            }
      });
    }
    for (auto& th : pool) th.join();
    pthread_barrier_destroy(&barrier_);
  };
}
inline double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace kopt_emu

template <typename Kernel>
auto emuLaunch(Kernel kernel, dim3 grid, dim3 block, size_t = 0, hipStream_t = nullptr) {
  return kopt_emu::launch(kernel, grid, block);
}

inline const char* hipGetErrorString(hipError_t e) { return e == hipSuccess ? "no error" : "emulated error"; }
inline hipError_t hipGetLastError() { return hipSuccess; }
inline hipError_t hipPeekAtLastError() { return hipSuccess; }
inline hipError_t hipGetDeviceCount(int* n) { *n = 1; return hipSuccess; }
inline hipError_t hipGetDevice(int* d) { *d = 0; return hipSuccess; }
inline hipError_t hipSetDevice(int) { return hipSuccess; }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "CPU emulation");
  p->multiProcessorCount = kopt_emu::kComputeUnits;
  p->major = 0;
  p->minor = 0;
  p->totalGlobalMem = size_t(1) << 30;
  p->l2CacheSize = kopt_emu::kL2Bytes;
  return hipSuccess;
}
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int) {
  switch (a) {
    case hipDeviceAttributeMultiprocessorCount: *v = kopt_emu::kComputeUnits; break;
    case hipDeviceAttributeL2CacheSize: *v = kopt_emu::kL2Bytes; break;
    default: *v = 0;
  }
  return hipSuccess;
}
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipMalloc(void** p, size_t bytes) {
  *p = std::malloc(bytes ? bytes : 1);
  return *p ? hipSuccess : hipErrorMemoryAllocation;
}
inline hipError_t hipFree(void* p) { std::free(p); return hipSuccess; }
inline hipError_t hipMemGetInfo(size_t* freeBytes, size_t* total) { *freeBytes = *total = size_t(1) << 30; return hipSuccess; }
inline hipError_t hipMemcpy(void* d, const void* s, size_t n, hipMemcpyKind) { std::memmove(d, s, n); return hipSuccess; }
inline hipError_t hipMemcpyAsync(void* d, const void* s, size_t n, hipMemcpyKind k, hipStream_t = nullptr) { return hipMemcpy(d, s, n, k); }
inline hipError_t hipMemset(void* d, int v, size_t n) { std::memset(d, v, n); return hipSuccess; }
inline hipError_t hipMemsetAsync(void* d, int v, size_t n, hipStream_t = nullptr) { return hipMemset(d, v, n); }
inline hipError_t hipEventCreate(hipEvent_t* e) { *e = new double(0); return hipSuccess; }
inline hipError_t hipEventDestroy(hipEvent_t e) { delete static_cast<double*>(e); return hipSuccess; }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t = nullptr) { *static_cast<double*>(e) = kopt_emu::nowMs(); return hipSuccess; }
inline hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) {
  *ms = static_cast<float>(*static_cast<double*>(b) - *static_cast<double*>(a));
  return hipSuccess;
}

namespace kopt_hip {
inline int clockRateKHz(int) { return 0; }
inline int memoryClockRateKHz(int) { return 0; }
inline int l2CacheBytes(int) { return kopt_emu::kL2Bytes; }
inline std::string archName(const hipDeviceProp_t&) { return "cpu-emulation"; }
inline hipError_t resetPersistingL2() { return hipSuccess; }
inline const char* platformName() { return "cpu-emulation"; }
}  // namespace kopt_hip
