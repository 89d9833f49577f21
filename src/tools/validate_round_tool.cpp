#include "tools/validate_round_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::ValidateResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " verdict: " + r.decision + " (" + r.kind + ", " +
                     std::to_string(r.pairs) + " interleaved pairs)\n";
  for (const auto& c : r.checks) text += "  ok: " + c + "\n";
  text += shapeTable(r.shapes);
  for (const auto& reason : r.reasons) text += "- " + reason.message + "\n";
  for (const auto& f : r.flags) text += "AUDIT flag: " + f + "\n";
  text += "Next: accept_or_revert (kopt applies the verdict; you supply attribution and next direction" +
          std::string(r.decision == "ROLLBACK" ? ", root_cause and lesson" : "") + ").";
  return text;
}

}  // namespace

mcp::ToolSpec makeValidateRoundTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::ValidateRequest, campaign::ValidateResult>(
      {"validate_round", "Validate the round",
       "OPTIMIZE/VALIDATE -> VALIDATE: the referee's verdict on the open round. Refused (nothing judged) when: frozen "
       "files/schema/commands changed, hypothesis.json was edited, HEAD moved, the diff touches files outside the "
       "declared set, the diff is empty (unless config-only), or the same files were already validated. Then, in "
       "order: build, tests, every Check PASS, schema byte-identical, shape set identical, and the statistical gate "
       "on interleaved A/B pairs (per-shape IMPROVED/SAME/REGRESSED/INCONCLUSIVE with family-wise control, aggregate "
       "CI); INCONCLUSIVE re-measures automatically up to the pair cap; a small quick win escalates to the full "
       "benchmark. Decision: ACCEPT, ACCEPT_WITH_NOTE, ROLLBACK, or AUDIT (numbers beyond speed of light or a >10x "
       "jump). Then call accept_or_revert, which applies it. Long: progress, cancellation, or async: true + "
       "poll_job."},
      deps.jobs,
      [engine](const campaign::ValidateRequest& q, const campaign::CallContext& ctx) { return engine->validateRound(q, ctx); },
      summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
