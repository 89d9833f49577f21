#include "campaign/batch_sizing_memo.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

using kopt::campaign::BatchSizingMemo;

TEST_CASE("a best build's cost per call is remembered per identity and shape") {
  BatchSizingMemo memo;
  CHECK_FALSE(memo.stepMs("abc", "mm_1k").has_value());
  memo.remember("abc", "mm_1k", 0.25);
  REQUIRE(memo.stepMs("abc", "mm_1k").has_value());
  CHECK(*memo.stepMs("abc", "mm_1k") == 0.25);
  CHECK_FALSE(memo.stepMs("abc", "mm_4k").has_value());  // another shape
  CHECK_FALSE(memo.stepMs("def", "mm_1k").has_value());  // another build (an accepted round)
  memo.remember("abc", "mm_1k", 0.5);                    // a newer estimate replaces the old
  CHECK(*memo.stepMs("abc", "mm_1k") == 0.5);
}

TEST_CASE("nothing is remembered without an identity or for an unusable estimate") {
  BatchSizingMemo memo;
  memo.remember("", "mm_1k", 0.25);
  CHECK_FALSE(memo.stepMs("", "mm_1k").has_value());
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    memo.remember("abc", "s", bad);
    CHECK_FALSE(memo.stepMs("abc", "s").has_value());
  }
}

TEST_CASE("the memo stays bounded") {
  BatchSizingMemo memo;
  for (std::size_t i = 0; i < BatchSizingMemo::kMaxEntries; ++i) memo.remember("id", std::to_string(i), 1.0);
  CHECK(memo.stepMs("id", "0").has_value());
  memo.remember("id", "one more", 1.0);  // full: everything else is forgotten
  CHECK_FALSE(memo.stepMs("id", "0").has_value());
  CHECK(memo.stepMs("id", "one more").has_value());
}
