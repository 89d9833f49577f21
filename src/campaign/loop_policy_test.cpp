#include "campaign/loop_policy.h"

#include <doctest/doctest.h>

namespace kopt::campaign {

TEST_CASE("the loop policy: two rollbacks ask for a review of three directions in two categories") {
  const LoopPolicy& p = loopPolicy();
  CHECK_FALSE(p.needsStagnationReview(1));
  CHECK(p.needsStagnationReview(2));
  CHECK(p.needsStagnationReview(5));
  CHECK(p.reviewRule() == "three new directions in at least two categories");
  LoopPolicy strict;
  strict.stagnationDirections = 12;
  CHECK(strict.reviewRule() == "12 new directions in at least two categories");
  CHECK(p.escalateBelowGain == doctest::Approx(0.05));
}

}  // namespace kopt::campaign
