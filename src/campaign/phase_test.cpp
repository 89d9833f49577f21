#include "campaign/phase.h"

#include <doctest/doctest.h>

#include <string>

using namespace kopt::campaign;

TEST_CASE("every phase round-trips through its contract name") {
  CHECK(allPhases().size() == 9);
  for (Phase p : allPhases()) {
    auto back = phaseFromString(toString(p));
    REQUIRE(back.has_value());
    CHECK((*back == p));
  }
  CHECK(std::string(toString(Phase::DefineTarget)) == "DEFINE_TARGET");
  CHECK(std::string(toString(Phase::ReadHistoricalTips)) == "READ_HISTORICAL_TIPS");
  CHECK(std::string(toString(Phase::Done)) == "DONE");
}

TEST_CASE("phase names are exact: no case folding, no unknowns") {
  CHECK_FALSE(phaseFromString("analyze").has_value());
  CHECK_FALSE(phaseFromString("ANALYSE").has_value());
  CHECK_FALSE(phaseFromString("").has_value());
  CHECK((allPhases().front() == Phase::DefineTarget));
  CHECK((allPhases().back() == Phase::Done));
  CHECK(std::string(allPhaseNames()).rfind("DEFINE_TARGET, PREPARE_ENVIRONMENT", 0) == 0);
}
