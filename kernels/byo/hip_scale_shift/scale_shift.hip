// y = x * w + b over the last dimension (w, b broadcast over rows), bf16 in and out, fp32 math:
// the "plain repository with a HIP kernel" of docs/byo-kernel.md. It starts deliberately plain
// (a small fixed grid walks the whole tensor, one element per thread per step) so a campaign has
// real headroom. Built by build.sh into build/libscale_shift.so; scale_shift.py calls it through
// ctypes on torch's current stream.
#include <hip/hip_runtime.h>

#include <cstdint>

constexpr int THREADS = 256;     // threads per block
constexpr int MAX_BLOCKS = 132;  // the grid: at most this many blocks, each striding over the tensor

namespace {

__device__ inline float bf16ToFloat(std::uint16_t bits) { return __uint_as_float(static_cast<std::uint32_t>(bits) << 16); }

__device__ inline std::uint16_t floatToBf16(float f) {  // round to nearest even (inputs are finite)
  const std::uint32_t u = __float_as_uint(f);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

__global__ void scaleShift(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                           long long total, int hidden) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int c = static_cast<int>(i % hidden);
    y[i] = floatToBf16(bf16ToFloat(x[i]) * bf16ToFloat(w[c]) + bf16ToFloat(b[c]));
  }
}

}  // namespace

// 0 on success, else the runtime's error code.
extern "C" int scale_shift_forward(const void* x, const void* w, const void* b, void* y, long long rows, int hidden,
                                   void* stream) {
  const long long total = rows * hidden;
  long long blocks = (total + THREADS - 1) / THREADS;
  if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
  if (blocks < 1) blocks = 1;
  hipLaunchKernelGGL(scaleShift, dim3(static_cast<unsigned>(blocks)), dim3(THREADS), 0, static_cast<hipStream_t>(stream),
                     static_cast<const std::uint16_t*>(x), static_cast<const std::uint16_t*>(w),
                     static_cast<const std::uint16_t*>(b), static_cast<std::uint16_t*>(y), total, hidden);
  return static_cast<int>(hipGetLastError());
}
