#include "harness/hip/correctness.h"

#include <cmath>

#include <doctest/doctest.h>

#include "harness/hip/bf16_bits.h"

using namespace kopt::hipbench;

TEST_CASE("SNR: exact is +inf, 1% noise is 40 dB, NaN never passes") {
  SnrAccumulator exact;
  exact.add(1.0, 1.0);
  exact.add(-2.0, -2.0);
  CHECK(std::isinf(exact.db()));

  SnrAccumulator noisy;
  for (int i = 0; i < 100; ++i) noisy.add(1.0, 1.01);
  CHECK(noisy.db() == doctest::Approx(40.0).epsilon(1e-6));

  SnrAccumulator withNan;
  withNan.add(1.0, 1.0);
  withNan.add(1.0, std::nan(""));
  CHECK(std::isnan(withNan.db()));

  CHECK(std::isnan(SnrAccumulator{}.db()));
}

TEST_CASE("tolerance check follows allclose and remembers the first failure") {
  ToleranceCheck check;
  check.atol = 1e-2;
  check.rtol = 1e-2;
  check.add(0, 1.0, 1.015);   // |err| 0.015 <= 0.01 + 0.01
  check.add(1, 100.0, 100.9); // 0.9 <= 0.01 + 1.0
  CHECK(check.pass());
  check.add(2, 1.0, 1.05);
  check.add(3, 1.0, INFINITY);
  CHECK_FALSE(check.pass());
  CHECK(check.failures == 1);
  CHECK(check.nonFinite == 1);
  CHECK(check.firstFailure == 2);
  CHECK(check.maxAbsErr == doctest::Approx(0.9));
  CHECK_FALSE(ToleranceCheck{}.pass());  // nothing checked is not a pass
}

TEST_CASE("poison and non-finite bf16 values are counted") {
  const std::uint16_t values[] = {0x3f80, kBf16Poison, 0x7f80 /* +inf */, 0xff80 /* -inf */, 0x0000, floatToBf16Bits(-3.5f)};
  CHECK(countNonFiniteBf16(values, 6) == 3);
}
