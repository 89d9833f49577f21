#include "hip_bench/gpu/l2_flush.h"

namespace kopt::hipbench {

L2Flusher::L2Flusher(std::uint64_t bytes) : buffer_(static_cast<std::size_t>(bytes)) {}

void L2Flusher::flush(hipStream_t stream) {
  KOPT_HIP_CHECK(kopt_hip::resetPersistingL2());
  value_ = (value_ + 1) & 0xff;
  KOPT_HIP_CHECK(hipMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
}

}  // namespace kopt::hipbench
