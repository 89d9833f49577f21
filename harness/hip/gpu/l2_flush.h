#pragma once
// The cold-cache flush written between timed calls, outside the timed region: reset any
// persisting-L2 window (NVIDIA), then read (FlushMode::Read, the default) or overwrite
// (FlushMode::Write) a buffer at least twice the last-level cache.
#include <cstdint>

#include "device/hip_portability.h"
#include "harness/hip/flush_mode.h"
#include "harness/hip/gpu/device_buffer.h"

namespace kopt::hipbench {

class L2Flusher {
 public:
  L2Flusher(std::uint64_t bytes, FlushMode mode);
  void flush(hipStream_t stream = nullptr);
  std::uint64_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer<unsigned char> buffer_;
  DeviceBuffer<unsigned> sink_;  // Read: written only if the XOR of the buffer hits a magic value
  FlushMode mode_;
  int value_ = 0;  // alternates, so no memory system can skip a write of identical bytes
};

}  // namespace kopt::hipbench
