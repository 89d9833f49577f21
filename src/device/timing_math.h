#pragma once
// Small helpers shared by the ceiling measurements of every backend: robust summaries of per-call
// times and host-side random bf16 data (never zeros: zeros run faster than real data on some
// matrix units and hide unwritten outputs).
#include <cstdint>
#include <optional>
#include <vector>

namespace kopt::device {

// Median of the values (average of the two middle ones for an even count); nullopt when empty.
std::optional<double> median(std::vector<double> values);

// float -> bf16 bits, round to nearest even; NaN stays a quiet NaN.
std::uint16_t floatToBf16Bits(float value);

// `count` bf16 values uniform in [-1, 1), reproducible from `seed`.
std::vector<std::uint16_t> randomBf16(std::size_t count, std::uint64_t seed);

}  // namespace kopt::device
