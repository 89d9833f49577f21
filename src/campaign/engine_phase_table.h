#pragma once
// Which phase each state-changing tool needs, and what to call instead when the campaign is
// elsewhere (docs/campaign-engine.md's table, as data). The engine checks this first on every
// state-changing call, before it looks at any argument.
#include <string>
#include <vector>

#include "campaign/phase.h"

namespace kopt::campaign {

enum class CampaignTool {
  DefineTarget,
  ConfirmTarget,
  PrepareEnvironment,
  ReadTips,
  RunBaseline,
  BeginRound,
  RebuildKernel,
  RunTests,
  RunQuickBench,
  ValidateRound,
  AcceptOrRevert,
  TerminationCheck,
  FinalAcceptance,
  Report,
};

const char* toolName(CampaignTool tool);  // "begin_round"
const std::vector<Phase>& phasesFor(CampaignTool tool);
bool allowedIn(CampaignTool tool, Phase phase);
// The tool that moves the campaign on from `phase` ("begin_round" for ANALYZE, ...).
std::string nextToolFor(Phase phase);
// A sentence for campaign_status: what the loop expects now.
std::string expectationFor(Phase phase);

}  // namespace kopt::campaign
