#include "campaign/records/record_types.h"

#include <doctest/doctest.h>

#include <string>

using namespace kopt::campaign::records;

TEST_CASE("Rule-11 buckets parse case-insensitively; W2/W3 are forbidden") {
  CHECK(rule11BucketFromString(" k3 ") == std::optional<Rule11Bucket>(Rule11Bucket::K3));
  CHECK(rule11BucketFromString("W1") == std::optional<Rule11Bucket>(Rule11Bucket::W1));
  CHECK_FALSE(rule11BucketFromString("K5").has_value());
  CHECK_FALSE(rule11BucketFromString("").has_value());
  for (auto b : {Rule11Bucket::K1, Rule11Bucket::K2, Rule11Bucket::K3, Rule11Bucket::K4, Rule11Bucket::W1})
    CHECK(isAllowed(b));
  CHECK_FALSE(isAllowed(Rule11Bucket::W2));
  CHECK_FALSE(isAllowed(Rule11Bucket::W3));
  CHECK(std::string(describe(Rule11Bucket::K3)) == "single-launch fusion");
}

TEST_CASE("status names match what the turbo helper counts (ROLL*, ACC*)") {
  CHECK(std::string(toString(RoundStatus::Baseline)) == "BASELINE");
  CHECK(std::string(toString(RoundStatus::Accepted)).rfind("ACC", 0) == 0);
  CHECK(std::string(toString(RoundStatus::AcceptedWithNote)).rfind("ACC", 0) == 0);
  CHECK(std::string(toString(RoundStatus::RolledBack)).rfind("ROLL", 0) == 0);
  CHECK(std::string(toString(EffectDirection::Decrease)) == "decrease");
}
