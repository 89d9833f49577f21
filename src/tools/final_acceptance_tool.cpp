#include "tools/final_acceptance_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::FinalAcceptanceResult& r) {
  return "Final acceptance: tests " + std::string(r.testsOk ? "PASSED" : "FAILED") + " (" + r.testLog + "); best " +
         r.bestCommit.substr(0, 12) + " vs baseline " + r.baselineCommit.substr(0, 12) + " over " +
         std::to_string(r.pairs) + " interleaved pairs (the 'best' column is the baseline):\n" + shapeTable(r.shapes) +
         "Next: report.";
}

}  // namespace

mcp::ToolSpec makeFinalAcceptanceTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::FinalAcceptanceRequest, campaign::FinalAcceptanceResult>(
      {"final_acceptance", "Final acceptance",
       "ANALYZE -> REPORT (after termination_check said stop): the full benchmark on all target shapes, the best "
       "build (working tree at the last accepted commit) interleaved against the baseline build, with per-shape "
       "verdicts and the aggregate gain's confidence interval, plus the full test suite. Long: progress, "
       "cancellation, or async: true + poll_job."},
      deps.jobs,
      [engine](const campaign::FinalAcceptanceRequest& q, const campaign::CallContext& ctx) {
        return engine->finalAcceptance(q, ctx);
      },
      summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
