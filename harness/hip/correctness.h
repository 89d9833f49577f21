#pragma once
// Reference checks of the native harness, against a float64 reference computed on the host.
//  - SNR in dB: 10*log10(sum ref^2 / sum (out-ref)^2); +inf when exact; NaN when any output is
//    not finite (a NaN never passes).
//  - Tolerance: |out - ref| <= atol + rtol*|ref| per element (torch.allclose's rule).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace kopt::hipbench {

class SnrAccumulator {
 public:
  void add(double ref, double out);
  double db() const;
  std::size_t count() const { return count_; }

 private:
  double signal_ = 0;
  double noise_ = 0;
  bool nonFinite_ = false;
  std::size_t count_ = 0;
};

struct ToleranceCheck {
  double atol = 1e-2;
  double rtol = 1e-2;
  std::size_t checked = 0;
  std::size_t failures = 0;
  std::size_t nonFinite = 0;
  double maxAbsErr = 0;
  // The first failing element, for the error message.
  std::size_t firstFailure = std::numeric_limits<std::size_t>::max();
  double firstRef = 0, firstOut = 0;

  void add(std::size_t index, double ref, double out);
  bool pass() const { return checked > 0 && failures == 0 && nonFinite == 0; }
};

// Counts bf16 elements that are NaN or Inf (an unwritten, poisoned element counts).
std::size_t countNonFiniteBf16(const std::uint16_t* bits, std::size_t count);

}  // namespace kopt::hipbench
