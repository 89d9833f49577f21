#pragma once
// Device-side fills: inputs from the shared generator (input_generator.h), poison for outputs.
#include <cstddef>
#include <cstdint>

#include "device/hip_portability.h"
#include "harness/hip/input_generator.h"

namespace kopt::hipbench {

// dst[i] = inputBits(stream, i) for i < count.
void fillInputs(std::uint16_t* dst, std::size_t count, const InputStream& stream, hipStream_t hipStream = nullptr);

// dst[i] = bits for i < count (e.g. kBf16Poison before a checked call).
void fillBits(std::uint16_t* dst, std::size_t count, std::uint16_t bits, hipStream_t hipStream = nullptr);

// float variant of the poison, for fp32 workspaces.
void fillFloat(float* dst, std::size_t count, float value, hipStream_t hipStream = nullptr);

}  // namespace kopt::hipbench
