#pragma once
// The inputs of every checked and timed call are a pure function of (seed, tensor, generation,
// element index). The GPU fills buffers with it (gpu/fill_kernels) and the host recomputes any
// element without copying data back, so:
//  - a timed call can get fresh contents at every sample (a kernel that caches results by address
//    or by identity returns stale outputs, which the per-sample spot check catches), and
//  - the host reference uses the true inputs even when a kernel writes into its inputs.
// Values are uniform in [-1, 1) with 24 random bits, then scaled by a power of two and offset, and
// rounded to bf16. Power-of-two scales keep the arithmetic exact, so a fused multiply-add on the
// GPU and two roundings on the host give the same bits.
#include <cstdint>

#include "harness/hip/bf16_bits.h"
#include "harness/hip/host_device.h"

namespace kopt::hipbench {

KOPT_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Which tensor of which call: tensors of one call differ by `tensor`, calls by `generation`.
struct InputStream {
  std::uint64_t seed = 0;
  std::uint32_t tensor = 0;
  std::uint32_t generation = 0;
  float scale = 1.0f;   // a power of two
  float offset = 0.0f;

  KOPT_HD std::uint64_t key() const {
    return mix64(seed ^ mix64((static_cast<std::uint64_t>(generation) << 32) | tensor));
  }
};

KOPT_HD inline float uniformFromKey(std::uint64_t key, std::uint64_t index) {
  const std::uint64_t h = mix64(key ^ mix64(index));
  return static_cast<float>(h >> 40) * (1.0f / 8388608.0f) - 1.0f;  // k * 2^-23 - 1, exact
}

KOPT_HD inline std::uint16_t inputBits(std::uint64_t key, float scale, float offset, std::uint64_t index) {
  return floatToBf16Bits(uniformFromKey(key, index) * scale + offset);
}

KOPT_HD inline std::uint16_t inputBits(const InputStream& stream, std::uint64_t index) {
  return inputBits(stream.key(), stream.scale, stream.offset, index);
}

inline float inputValue(const InputStream& stream, std::uint64_t index) {
  return bf16BitsToFloat(inputBits(stream, index));
}

}  // namespace kopt::hipbench
