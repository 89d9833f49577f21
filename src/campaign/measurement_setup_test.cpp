#include "campaign/measurement_setup.h"

#include <doctest/doctest.h>

#include "campaign/engine_session.h"

namespace kopt::campaign {

TEST_CASE("a round's policy takes the plan's blocks a look, and keeps every look the plan promised") {
  measure::GatePolicy manifest;  // gate.pairs 8, max_looks 3: a cap of 24 blocks
  detail::OpenCampaign s;
  // No baseline yet, or one measured with process pairs: the manifest's policy as it is.
  CHECK(detail::policyForPlan(s, manifest).maxPairs == 24);
  BaselineRecorded b;
  b.record.number = 1;
  b.harness = nlohmann::json{{"ok", true}, {"blocks_per_look", 30}, {"shapes", nlohmann::json::array()}};
  s.events.push_back(TypedEvent{1, "", 1, b});
  s.rounds.add(s.events.back());
  const measure::GatePolicy round = detail::policyForPlan(s, manifest);
  // The H100 campaign's plan: 30 blocks a look under a cap of 24 allowed one look only.
  CHECK(round.blocksPerLook == 30);
  CHECK(round.remeasurePairs == 30);
  CHECK(round.maxPairs == 90);
  CHECK(round.maxLooks == 3);
  // A plan below gate.pairs changes nothing: the manifest's blocks are the least a look runs.
  s.events.clear();
  s.rounds = RoundLog{};
  b.harness["blocks_per_look"] = 4;
  s.events.push_back(TypedEvent{1, "", 1, b});
  s.rounds.add(s.events.back());
  CHECK(detail::policyForPlan(s, manifest).blocksPerLook == 8);
  CHECK(detail::policyForPlan(s, manifest).maxPairs == 24);
}

}  // namespace kopt::campaign
