#include "tools/final_acceptance_tool.h"

#include "campaign/engine_phase_table.h"

namespace kopt::tools {

mcp::ToolSpec makeFinalAcceptanceTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "final_acceptance";
  t.title = "Final acceptance";
  t.description =
      "ANALYZE -> REPORT (after termination_check said stop): the full benchmark on all target shapes, the best build "
      "(working tree at the last accepted commit) interleaved against the baseline build, with per-shape verdicts and "
      "the aggregate gain's confidence interval, plus the full test suite. Long: progress, cancellation, or async: "
      "true + poll_job.";
  FlatSchema s;
  s.campaignDir().integer("pairs", "Interleaved pairs (default: max(5, gate.pairs))", false, 1, 50).async();
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .boolean("tests_ok")
                       .string("test_log")
                       .integer("pairs")
                       .prop("shapes", shapeRowSchema())
                       .prop("aggregate", aggregateSchema())
                       .string("best_commit")
                       .string("baseline_commit")
                       .phase()
                       .string("next_tool")
                       .jobFields()
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = longHandler("final_acceptance", deps.jobs, [engine](const json& args, const campaign::CallContext& ctx) {
    campaign::FinalAcceptanceRequest q;
    q.campaignDir = argString(args, "campaign_dir");
    q.pairs = static_cast<int>(argInt(args, "pairs").value_or(0));
    return respond<campaign::FinalAcceptanceResult>(
        engine->finalAcceptance(q, ctx),
        [](const campaign::FinalAcceptanceResult& r) {
          return json{{"tests_ok", r.testsOk},           {"test_log", r.testLog},
                      {"pairs", r.pairs},                {"shapes", shapeRowsJson(r.shapes)},
                      {"aggregate", aggregateJson(r.aggregate)},
                      {"best_commit", r.bestCommit},     {"baseline_commit", r.baselineCommit},
                      {"phase", campaign::toString(r.phase)}, {"next_tool", campaign::nextToolFor(r.phase)}};
        },
        [](const campaign::FinalAcceptanceResult& r) {
          return "Final acceptance: tests " + std::string(r.testsOk ? "PASSED" : "FAILED") + " (" + r.testLog +
                 "); best " + r.bestCommit.substr(0, 12) + " vs baseline " + r.baselineCommit.substr(0, 12) + " over " +
                 std::to_string(r.pairs) + " interleaved pairs (the 'best' column is the baseline):\n" +
                 shapeTable(r.shapes) + "Next: report.";
        });
  });
  return t;
}

}  // namespace kopt::tools
