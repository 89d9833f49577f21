#include "harness/hip/gpu/l2_flush.h"

namespace kopt::hipbench {

namespace {
// Reads every 16-byte word of the buffer; the sink is written only when the XOR of what a thread
// read hits a magic value, so the loads cannot be dropped and nothing is left dirty in the L2.
__global__ void readFlushKernel(const uint4* words, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 w = words[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}
}  // namespace

L2Flusher::L2Flusher(std::uint64_t bytes, FlushMode mode)
    : buffer_(static_cast<std::size_t>(bytes)), sink_(1), mode_(mode) {
  // Defined contents once, so a read flush reads real memory.
  KOPT_HIP_CHECK(hipMemset(buffer_.get(), 0x5a, buffer_.bytes()));
  KOPT_HIP_CHECK(hipDeviceSynchronize());
}

void L2Flusher::flush(hipStream_t stream) {
  KOPT_HIP_CHECK(kopt_hip::resetPersistingL2());
  if (mode_ == FlushMode::Read) {
    readFlushKernel<<<1024, 256, 0, stream>>>(reinterpret_cast<const uint4*>(buffer_.get()), buffer_.bytes() / 16,
                                              sink_.get());
    KOPT_HIP_CHECK_LAUNCH();
    return;
  }
  value_ = (value_ + 1) & 0xff;
  KOPT_HIP_CHECK(hipMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
}

}  // namespace kopt::hipbench
