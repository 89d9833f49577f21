#include "harness/hip/correctness.h"

#include <cmath>

#include "harness/hip/bf16_bits.h"

namespace kopt::hipbench {

void SnrAccumulator::add(double ref, double out) {
  ++count_;
  if (!std::isfinite(out) || !std::isfinite(ref)) {
    nonFinite_ = true;
    return;
  }
  signal_ += ref * ref;
  noise_ += (out - ref) * (out - ref);
}

double SnrAccumulator::db() const {
  if (nonFinite_ || count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  if (noise_ == 0) return std::numeric_limits<double>::infinity();
  if (signal_ == 0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal_ / noise_);
}

void ToleranceCheck::add(std::size_t index, double ref, double out) {
  ++checked;
  if (!std::isfinite(out)) {
    ++nonFinite;
    if (firstFailure == std::numeric_limits<std::size_t>::max()) {
      firstFailure = index;
      firstRef = ref;
      firstOut = out;
    }
    return;
  }
  const double err = std::fabs(out - ref);
  if (err > maxAbsErr) maxAbsErr = err;
  if (err > atol + rtol * std::fabs(ref)) {
    ++failures;
    if (firstFailure == std::numeric_limits<std::size_t>::max()) {
      firstFailure = index;
      firstRef = ref;
      firstOut = out;
    }
  }
}

std::size_t countNonFiniteBf16(const std::uint16_t* bits, std::size_t count) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) bad += !bf16IsFinite(bits[i]);
  return bad;
}

}  // namespace kopt::hipbench
