#include "tools/campaign_status_tool.h"

#include "tools/typed_tool_spec.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

std::string statusText(const campaign::StatusResult& s) {
  std::string text = "Campaign " + s.campaignName + " (" + s.campaignDir + "): phase " + campaign::toString(s.phase) +
                     " - " + s.expectation + ".\n";
  text += "Rounds: last " + std::to_string(s.lastRound) +
          (s.openRound ? ", open round " + std::to_string(*s.openRound) + " (files: " + util::join(s.declaredFiles, ", ") + ")" : "") +
          ", best round " + (s.bestRound ? std::to_string(*s.bestRound) : std::string("none")) + ", " +
          std::to_string(s.acceptedRounds) + " accepted, " + std::to_string(s.rolledBackRounds) +
          " rolled back, rollback streak " + std::to_string(s.consecutiveRollbacks) + ".\n";
  if (!s.lastValidation.empty()) text += "Open round's verdict: " + s.lastValidation + ".\n";
  text += "Integrity: " + s.integrity + "\n";
  for (const auto& p : s.problems) text += "  - " + p + "\n";
  if (!s.pendingStep.empty()) text += "Interrupted: " + s.recovery + "\n";
  for (const auto& n : s.next) text += "Next: " + n.tool + " (" + n.why + ")\n";
  return text;
}

// Without campaign_dir: the campaigns found under the workspace.
mcp::ToolResult listingResult(const std::vector<campaign::CampaignListing>& campaigns) {
  json list = json::array();
  std::string text;
  for (const auto& c : campaigns) {
    list.push_back(resultJson(c));
    text += "\n  " + c.campaignDir + ": " + campaign::toString(c.phase) + ", round " + std::to_string(c.lastRound) +
            (c.openRound ? " (open)" : "");
  }
  mcp::ToolResult r;
  r.content.push_back(mcp::textContent(list.empty() ? "No campaign under the workspace; define_target starts one."
                                                    : std::to_string(list.size()) + " campaign(s):" + text +
                                                          "\nCall campaign_status with one campaign_dir."));
  r.structuredContent = json{{"campaigns", list}};
  return r;
}

}  // namespace

mcp::ToolSpec makeCampaignStatusTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = typedSpec<CampaignStatusArgs, StatusOrListing>(
      {"campaign_status", "Campaign status",
       "Any phase, read-only: where the campaign stands (phase, open round and its declared files, best and baseline "
       "commits and aggregates, rollback streak), whether the ledger chain and the frozen files are intact, what was "
       "interrupted if the server died mid-step and how the next call resumes it, and which tools to call next. Call "
       "it first after a restart; without campaign_dir it lists the campaigns under the workspace."});
  t.annotations = campaignReadAnnotations();
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("campaign_status", [&] {
      CampaignStatusArgs a;
      if (auto problem = readArguments(args, a)) return argumentError(*problem);
      if (a.campaignDir.empty()) return listingResult(engine->listCampaigns());
      return respond<campaign::StatusResult>(engine->campaignStatus(a.campaignDir),
                                             resultJson<campaign::StatusResult>, statusText);
    });
  };
  return t;
}

}  // namespace kopt::tools
