#include <doctest/doctest.h>

#include "campaign/engine_phase_table.h"

namespace kopt::campaign {

TEST_CASE("phase table: each state-changing tool needs its phase (docs/campaign-engine.md)") {
  CHECK(allowedIn(CampaignTool::ConfirmTarget, Phase::DefineTarget));
  CHECK_FALSE(allowedIn(CampaignTool::ConfirmTarget, Phase::PrepareEnvironment));
  CHECK(allowedIn(CampaignTool::PrepareEnvironment, Phase::PrepareEnvironment));
  CHECK(allowedIn(CampaignTool::ReadTips, Phase::ReadHistoricalTips));
  CHECK(allowedIn(CampaignTool::RunBaseline, Phase::Baseline));
  CHECK(allowedIn(CampaignTool::BeginRound, Phase::Analyze));
  CHECK_FALSE(allowedIn(CampaignTool::BeginRound, Phase::Optimize));
  for (auto t : {CampaignTool::RebuildKernel, CampaignTool::RunTests, CampaignTool::RunQuickBench, CampaignTool::ValidateRound}) {
    CHECK(allowedIn(t, Phase::Optimize));
    CHECK(allowedIn(t, Phase::Validate));
    CHECK_FALSE(allowedIn(t, Phase::Analyze));
  }
  CHECK(allowedIn(CampaignTool::AcceptOrRevert, Phase::Validate));
  CHECK_FALSE(allowedIn(CampaignTool::AcceptOrRevert, Phase::Optimize));
  CHECK(allowedIn(CampaignTool::TerminationCheck, Phase::Analyze));
  CHECK(allowedIn(CampaignTool::FinalAcceptance, Phase::Analyze));
  CHECK(allowedIn(CampaignTool::Report, Phase::Report));
  for (auto p : allPhases()) CHECK_FALSE(nextToolFor(p).empty());
  CHECK(nextToolFor(Phase::Validate) == "accept_or_revert");
  CHECK(std::string(toolName(CampaignTool::AcceptOrRevert)) == "accept_or_revert");
}

}  // namespace kopt::campaign
