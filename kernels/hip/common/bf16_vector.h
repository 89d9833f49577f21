#pragma once
// Vector loads and stores of raw bf16 bits on the GPU: V consecutive elements (V = 1, 2, 4, 8,
// i.e. 2 to 16 bytes) in one memory instruction. The caller guarantees alignment to V * 2 bytes.
#include <cstdint>

#include "device/hip_portability.h"
#include "harness/hip/bf16_bits.h"

namespace kopt::kernels {

template <int V>
__device__ inline void loadBf16Vector(const std::uint16_t* p, float* out) {
  using hipbench::bf16BitsToFloat;
  if constexpr (V == 8) {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    const unsigned words[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      out[2 * i] = bf16BitsToFloat(static_cast<std::uint16_t>(words[i] & 0xffffu));
      out[2 * i + 1] = bf16BitsToFloat(static_cast<std::uint16_t>(words[i] >> 16));
    }
  } else if constexpr (V == 4) {
    const uint2 u = *reinterpret_cast<const uint2*>(p);
    const unsigned words[2] = {u.x, u.y};
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      out[2 * i] = bf16BitsToFloat(static_cast<std::uint16_t>(words[i] & 0xffffu));
      out[2 * i + 1] = bf16BitsToFloat(static_cast<std::uint16_t>(words[i] >> 16));
    }
  } else if constexpr (V == 2) {
    const unsigned word = *reinterpret_cast<const unsigned*>(p);
    out[0] = bf16BitsToFloat(static_cast<std::uint16_t>(word & 0xffffu));
    out[1] = bf16BitsToFloat(static_cast<std::uint16_t>(word >> 16));
  } else {
    static_assert(V == 1, "V must be 1, 2, 4 or 8");
    out[0] = bf16BitsToFloat(*p);
  }
}

template <int V>
__device__ inline void storeBf16Vector(std::uint16_t* p, const float* in) {
  using hipbench::floatToBf16Bits;
  unsigned words[(V + 1) / 2];
#pragma unroll
  for (int i = 0; i < V / 2; ++i) {
    words[i] = static_cast<unsigned>(floatToBf16Bits(in[2 * i])) |
               (static_cast<unsigned>(floatToBf16Bits(in[2 * i + 1])) << 16);
  }
  if constexpr (V == 8) {
    *reinterpret_cast<uint4*>(p) = make_uint4(words[0], words[1], words[2], words[3]);
  } else if constexpr (V == 4) {
    *reinterpret_cast<uint2*>(p) = make_uint2(words[0], words[1]);
  } else if constexpr (V == 2) {
    *reinterpret_cast<unsigned*>(p) = words[0];
  } else {
    static_assert(V == 1, "V must be 1, 2, 4 or 8");
    *p = floatToBf16Bits(in[0]);
  }
}

}  // namespace kopt::kernels
