#include "tools/termination_check_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeTerminationCheckTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "termination_check";
  t.title = "Check the termination conditions";
  t.description =
      "ANALYZE: evaluates T1 (performance_target reached), T2 (the best is at an acceptable fraction of the hardware "
      "peak), T3 (max_iterations rounds used) and T4 (user_stop) and records the check in optimize.md. After two "
      "rollbacks in a row it is the stagnation review: pass at least three new directions in at least two categories "
      "('category: direction'); begin_round is refused until then. When it says stop, call final_acceptance.";
  FlatSchema s;
  s.campaignDir()
      .boolean("user_stop", "The user asked to stop (T4)")
      .strings("directions", "New directions, each 'category: direction' (the stagnation review; also recorded as "
                             "Directions to Try)");
  t.inputSchema = s.build();
  json condition{{"type", "object"},
                 {"properties", {{"id", {{"type", "string"}}}, {"met", {{"type", "boolean"}}}, {"detail", {{"type", "string"}}}}},
                 {"required", {"id", "met"}}};
  t.outputSchema = OutputSchema()
                       .prop("conditions", {{"type", "array"}, {"items", condition}}, true)
                       .boolean("stop", true)
                       .string("decision")
                       .boolean("stagnation_review_required")
                       .boolean("stagnation_review_done")
                       .prop("next", nextSchema())
                       .phase()
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("termination_check", [&] {
      campaign::TerminationRequest q;
      q.campaignDir = argString(args, "campaign_dir");
      q.userStop = argBool(args, "user_stop");
      q.directions = argStrings(args, "directions").value_or(std::vector<std::string>{});
      return respond<campaign::TerminationResult>(
          engine->terminationCheck(q),
          [](const campaign::TerminationResult& r) {
            json conditions = json::array();
            for (const auto& c : r.conditions) conditions.push_back({{"id", c.id}, {"met", c.met}, {"detail", c.detail}});
            return json{{"conditions", conditions},
                        {"stop", r.stop},
                        {"decision", r.decision},
                        {"stagnation_review_required", r.stagnationReviewRequired},
                        {"stagnation_review_done", r.stagnationReviewDone},
                        {"next", nextJson(r.next)},
                        {"phase", campaign::toString(r.phase)}};
          },
          [](const campaign::TerminationResult& r) {
            std::string text = "Termination check: " + r.decision + "\n";
            for (const auto& c : r.conditions) text += "  " + c.id + (c.met ? " MET: " : " not met: ") + c.detail + "\n";
            text += r.stop ? "Next: final_acceptance." : "Next: begin_round.";
            return text;
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
