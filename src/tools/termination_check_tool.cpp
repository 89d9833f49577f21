#include "tools/termination_check_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::TerminationResult& r) {
  std::string text = "Termination check: " + r.decision + "\n";
  for (const auto& c : r.conditions) text += "  " + c.id + (c.met ? " MET: " : " not met: ") + c.detail + "\n";
  text += r.stop ? "Next: final_acceptance." : "Next: begin_round.";
  return text;
}

}  // namespace

mcp::ToolSpec makeTerminationCheckTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::TerminationRequest, campaign::TerminationResult>(
      {"termination_check", "Check the termination conditions",
       "ANALYZE: evaluates T1 (performance_target reached), T2 (the best is at an acceptable fraction of the hardware "
       "peak), T3 (max_iterations rounds used) and T4 (user_stop) and records the check in optimize.md. After two "
       "rollbacks in a row it is the stagnation review: pass at least three new directions in at least two "
       "categories ('category: direction'); begin_round is refused until then. When it says stop, call "
       "final_acceptance."},
      [engine](const campaign::TerminationRequest& q) { return engine->terminationCheck(q); }, summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
