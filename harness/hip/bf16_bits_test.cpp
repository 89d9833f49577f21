#include "harness/hip/bf16_bits.h"

#include <cmath>

#include <doctest/doctest.h>

#include "harness/hip/input_generator.h"

using namespace kopt::hipbench;

TEST_CASE("bf16 round trip and round-to-nearest-even") {
  CHECK(bf16BitsToFloat(floatToBf16Bits(1.0f)) == 1.0f);
  CHECK(bf16BitsToFloat(floatToBf16Bits(-0.5f)) == -0.5f);
  CHECK(floatToBf16Bits(1.00390625f) == 0x3f80);  // halfway: to even
  CHECK(floatToBf16Bits(1.01171875f) == 0x3f82);
  CHECK(std::isnan(bf16BitsToFloat(kBf16Poison)));
  CHECK_FALSE(bf16IsFinite(kBf16Poison));
  CHECK(bf16IsFinite(0x3f80));
}

TEST_CASE("the input generator is deterministic, separates tensors and calls, and respects the range") {
  InputStream a{42, 0, 0, 1.0f, 0.0f};
  InputStream b{42, 1, 0, 1.0f, 0.0f};
  InputStream a2{42, 0, 1, 1.0f, 0.0f};
  int sameAB = 0, sameGen = 0, zeros = 0;
  double sum = 0;
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const float va = inputValue(a, i);
    CHECK(va >= -1.0f);
    CHECK(va <= 1.0f);  // bf16 rounding can reach 1.0
    CHECK(inputValue(a, i) == va);
    sameAB += inputValue(b, i) == va;
    sameGen += inputValue(a2, i) == va;
    zeros += va == 0.0f;
    sum += va;
  }
  CHECK(sameAB < 100);
  CHECK(sameGen < 100);
  CHECK(zeros < 20);
  CHECK(std::fabs(sum / 4096) < 0.05);  // centred

  InputStream w{7, 3, 0, 0.5f, 1.0f};
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float v = inputValue(w, i);
    CHECK(v >= 0.5f);
    CHECK(v <= 1.5f);
  }
}
