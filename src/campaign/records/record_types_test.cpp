#include "campaign/records/record_types.h"

#include <doctest/doctest.h>

#include <string>

using namespace kopt::campaign::records;

TEST_CASE("the records speak the campaign's vocabulary, and name an effect's direction") {
  CHECK(std::string(toString(RoundStatus::RolledBack)) == "ROLLED BACK");
  CHECK(std::string(toString(Rule11Bucket::K3)) == "K3");
  CHECK(std::string(toString(EffectDirection::Decrease)) == "decrease");
  CHECK(std::string(toString(EffectDirection::Increase)) == "increase");
}
