#include "harness/hip/gpu/fill_kernels.h"

#include "harness/hip/gpu/hip_check.h"

namespace kopt::hipbench {

namespace {

constexpr int kThreads = 256;

// Grid-stride loops below: the grid can be capped and every element is still covered.
#ifndef KOPT_FILL_MAX_BLOCKS
#define KOPT_FILL_MAX_BLOCKS (65535 * 16)
#endif

unsigned gridFor(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < KOPT_FILL_MAX_BLOCKS ? blocks : KOPT_FILL_MAX_BLOCKS);
}

__global__ void fillInputsKernel(std::uint16_t* dst, std::size_t count, std::uint64_t key, float scale, float offset) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    dst[i] = inputBits(key, scale, offset, i);
  }
}

template <typename T>
__global__ void fillValueKernel(T* dst, std::size_t count, T value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    dst[i] = value;
  }
}

}  // namespace

void fillInputs(std::uint16_t* dst, std::size_t count, const InputStream& stream, hipStream_t hipStream) {
  if (count == 0) return;
  fillInputsKernel<<<gridFor(count), kThreads, 0, hipStream>>>(dst, count, stream.key(), stream.scale, stream.offset);
  KOPT_HIP_CHECK_LAUNCH();
}

void fillBits(std::uint16_t* dst, std::size_t count, std::uint16_t bits, hipStream_t hipStream) {
  if (count == 0) return;
  fillValueKernel<std::uint16_t><<<gridFor(count), kThreads, 0, hipStream>>>(dst, count, bits);
  KOPT_HIP_CHECK_LAUNCH();
}

void fillFloat(float* dst, std::size_t count, float value, hipStream_t hipStream) {
  if (count == 0) return;
  fillValueKernel<float><<<gridFor(count), kThreads, 0, hipStream>>>(dst, count, value);
  KOPT_HIP_CHECK_LAUNCH();
}

}  // namespace kopt::hipbench
