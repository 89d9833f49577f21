#pragma once
// bf16 <-> float on raw bits, identical on host and device (no vendor intrinsics), so the host
// reference sees exactly the values the kernel saw.
#include <cstdint>
#include <cstring>

#include "harness/hip/host_device.h"

namespace kopt::hipbench {

KOPT_HD inline float bf16BitsToFloat(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// Round to nearest even; NaN stays a quiet NaN with its sign.
KOPT_HD inline std::uint16_t floatToBf16Bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

// The poison written into outputs before a checked call: a quiet NaN, so an element the kernel
// never wrote fails the check instead of passing with a stale value.
constexpr std::uint16_t kBf16Poison = 0x7fc1;

KOPT_HD inline bool bf16IsFinite(std::uint16_t bits) { return (bits & 0x7f80u) != 0x7f80u; }

}  // namespace kopt::hipbench
