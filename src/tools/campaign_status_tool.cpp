#include "tools/campaign_status_tool.h"

#include "util/text.h"

namespace kopt::tools {

mcp::ToolSpec makeCampaignStatusTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "campaign_status";
  t.title = "Campaign status";
  t.description =
      "Any phase, read-only: where the campaign stands (phase, open round and its declared files, best and baseline "
      "commits and aggregates, rollback streak), whether the ledger chain and the frozen files are intact, what was "
      "interrupted if the server died mid-step and how the next call resumes it, and which tools to call next. Call "
      "it first after a restart; without campaign_dir it lists the campaigns under the workspace.";
  FlatSchema s;
  s.string("campaign_dir", "The campaign directory; omit it to list the campaigns found under the workspace");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("campaign_dir")
                       .string("campaign_name")
                       .string("repo")
                       .phase()
                       .string("expectation")
                       .integer("last_round")
                       .prop("open_round", nullable("integer"))
                       .strings("declared_files")
                       .prop("best_round", nullable("integer"))
                       .string("best_commit")
                       .string("baseline_commit")
                       .nullableNumber("best_aggregate")
                       .nullableNumber("baseline_aggregate")
                       .string("metric")
                       .integer("consecutive_rollbacks")
                       .integer("accepted_rounds")
                       .integer("rolled_back_rounds")
                       .integer("ledger_events")
                       .boolean("ledger_ok")
                       .string("integrity")
                       .strings("problems")
                       .string("pending_step")
                       .string("recovery")
                       .string("last_validation")
                       .prop("next", nextSchema())
                       .prop("campaigns",
                             {{"type", "array"},
                              {"items",
                               {{"type", "object"},
                                {"properties",
                                 {{"campaign_dir", {{"type", "string"}}},
                                  {"campaign_name", {{"type", "string"}}},
                                  {"phase", phaseSchema()},
                                  {"last_round", {{"type", "integer"}}},
                                  {"open_round", nullable("integer")}}},
                                {"required", {"campaign_dir", "phase"}}}}})
                       .build();
  t.annotations.readOnlyHint = true;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("campaign_status", [&] {
      if (argString(args, "campaign_dir").empty()) {
        json list = json::array();
        std::string text;
        for (const auto& c : engine->listCampaigns()) {
          list.push_back({{"campaign_dir", c.campaignDir},
                          {"campaign_name", c.campaignName},
                          {"phase", campaign::toString(c.phase)},
                          {"last_round", c.lastRound},
                          {"open_round", c.openRound ? json(*c.openRound) : json(nullptr)}});
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
      return respond<campaign::StatusResult>(
          engine->campaignStatus(argString(args, "campaign_dir")),
          [](const campaign::StatusResult& s) {
            return json{{"campaign_dir", s.campaignDir},
                        {"campaign_name", s.campaignName},
                        {"repo", s.repo},
                        {"phase", campaign::toString(s.phase)},
                        {"expectation", s.expectation},
                        {"last_round", s.lastRound},
                        {"open_round", s.openRound ? json(*s.openRound) : json(nullptr)},
                        {"declared_files", s.declaredFiles},
                        {"best_round", s.bestRound ? json(*s.bestRound) : json(nullptr)},
                        {"best_commit", s.bestCommit},
                        {"baseline_commit", s.baselineCommit},
                        {"best_aggregate", optNumber(s.bestAggregate)},
                        {"baseline_aggregate", optNumber(s.baselineAggregate)},
                        {"metric", s.metric},
                        {"consecutive_rollbacks", s.consecutiveRollbacks},
                        {"accepted_rounds", s.acceptedRounds},
                        {"rolled_back_rounds", s.rolledBackRounds},
                        {"ledger_events", s.ledgerEvents},
                        {"ledger_ok", s.ledgerOk},
                        {"integrity", s.integrity},
                        {"problems", s.problems},
                        {"pending_step", s.pendingStep},
                        {"recovery", s.recovery},
                        {"last_validation", s.lastValidation},
                        {"next", nextJson(s.next)}};
          },
          [](const campaign::StatusResult& s) {
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
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
