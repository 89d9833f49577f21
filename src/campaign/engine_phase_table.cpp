#include "campaign/engine_phase_table.h"

#include <algorithm>

namespace kopt::campaign {

const char* toolName(CampaignTool tool) {
  switch (tool) {
    case CampaignTool::DefineTarget: return "define_target";
    case CampaignTool::ConfirmTarget: return "confirm_target";
    case CampaignTool::PrepareEnvironment: return "prepare_environment";
    case CampaignTool::ReadTips: return "read_tips";
    case CampaignTool::RunBaseline: return "run_baseline";
    case CampaignTool::BeginRound: return "begin_round";
    case CampaignTool::RebuildKernel: return "rebuild_kernel";
    case CampaignTool::RunTests: return "run_tests";
    case CampaignTool::RunQuickBench: return "run_quick_bench";
    case CampaignTool::ValidateRound: return "validate_round";
    case CampaignTool::AcceptOrRevert: return "accept_or_revert";
    case CampaignTool::TerminationCheck: return "termination_check";
    case CampaignTool::FinalAcceptance: return "final_acceptance";
    case CampaignTool::Report: return "report";
  }
  return "?";
}

const std::vector<Phase>& phasesFor(CampaignTool tool) {
  static const std::vector<Phase> define{Phase::DefineTarget};
  static const std::vector<Phase> prepare{Phase::PrepareEnvironment};
  static const std::vector<Phase> tips{Phase::ReadHistoricalTips};
  static const std::vector<Phase> baseline{Phase::Baseline};
  static const std::vector<Phase> analyze{Phase::Analyze};
  static const std::vector<Phase> roundWork{Phase::Optimize, Phase::Validate};
  static const std::vector<Phase> validate{Phase::Validate};
  static const std::vector<Phase> report{Phase::Report};
  switch (tool) {
    case CampaignTool::DefineTarget:
    case CampaignTool::ConfirmTarget: return define;
    case CampaignTool::PrepareEnvironment: return prepare;
    case CampaignTool::ReadTips: return tips;
    case CampaignTool::RunBaseline: return baseline;
    case CampaignTool::BeginRound:
    case CampaignTool::TerminationCheck:
    case CampaignTool::FinalAcceptance: return analyze;
    case CampaignTool::RebuildKernel:
    case CampaignTool::RunTests:
    case CampaignTool::RunQuickBench:
    case CampaignTool::ValidateRound: return roundWork;
    case CampaignTool::AcceptOrRevert: return validate;
    case CampaignTool::Report: return report;
  }
  return analyze;
}

bool allowedIn(CampaignTool tool, Phase phase) {
  const auto& phases = phasesFor(tool);
  return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

std::string nextToolFor(Phase phase) {
  switch (phase) {
    case Phase::DefineTarget: return "confirm_target";
    case Phase::PrepareEnvironment: return "prepare_environment";
    case Phase::ReadHistoricalTips: return "read_tips";
    case Phase::Baseline: return "run_baseline";
    case Phase::Analyze: return "begin_round";
    case Phase::Optimize: return "validate_round";
    case Phase::Validate: return "accept_or_revert";
    case Phase::Report: return "report";
    case Phase::Done: return "campaign_status";
  }
  return "campaign_status";
}

std::string expectationFor(Phase phase) {
  switch (phase) {
    case Phase::DefineTarget:
      return "the target is defined and waits for the user's confirmation (confirm_target)";
    case Phase::PrepareEnvironment:
      return "confirmed; prepare_environment creates the branch and freezes the manifest";
    case Phase::ReadHistoricalTips: return "read_tips reads the historical tips for this op/backend/gpu";
    case Phase::Baseline: return "run_baseline builds, tests and measures the unmodified kernel (round-1)";
    case Phase::Analyze:
      return "between rounds: begin_round with one hypothesis, or termination_check / final_acceptance";
    case Phase::Optimize:
      return "a round is open: edit the declared files, then rebuild_kernel / run_tests / run_quick_bench and "
             "validate_round";
    case Phase::Validate: return "the round is validated: accept_or_revert applies the verdict";
    case Phase::Report: return "final acceptance done: report writes report.md";
    case Phase::Done: return "the campaign is finished";
  }
  return "";
}

}  // namespace kopt::campaign
