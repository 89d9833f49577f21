#include "device/timing_math.h"

#include <limits>

#include <doctest/doctest.h>

using namespace kopt::device;

TEST_CASE("median of odd, even and empty sets") {
  CHECK(*median({3.0, 1.0, 2.0}) == doctest::Approx(2.0));
  CHECK(*median({4.0, 1.0, 3.0, 2.0}) == doctest::Approx(2.5));
  CHECK_FALSE(median({}));
}

TEST_CASE("bf16 rounding is to nearest even and keeps NaN") {
  CHECK(floatToBf16Bits(1.0f) == 0x3f80);
  CHECK(floatToBf16Bits(-2.0f) == 0xc000);
  // 1 + 2^-8 is exactly halfway between two bf16 values: ties go to the even one (1.0).
  CHECK(floatToBf16Bits(1.00390625f) == 0x3f80);
  // 1 + 3*2^-8 is halfway between 0x3f81 and 0x3f82: ties to even -> 0x3f82.
  CHECK(floatToBf16Bits(1.01171875f) == 0x3f82);
  const std::uint16_t nan = floatToBf16Bits(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7f80) == 0x7f80);
  CHECK((nan & 0x007f) != 0);
}

TEST_CASE("random bf16 data is reproducible, bounded and not zero") {
  auto a = randomBf16(1000, 7);
  auto b = randomBf16(1000, 7);
  auto c = randomBf16(1000, 8);
  CHECK(a == b);
  CHECK(a != c);
  int zeros = 0;
  for (auto v : a) {
    CHECK((v & 0x7fff) <= 0x3f80);  // |x| <= 1
    zeros += (v & 0x7fff) == 0;
  }
  CHECK(zeros < 10);
}
