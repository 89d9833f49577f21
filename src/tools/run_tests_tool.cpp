#include "tools/run_tests_tool.h"

#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRunTestsTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "run_tests";
  t.title = "Run the correctness tests";
  t.description =
      "OPTIMIZE/VALIDATE (open round): runs the manifest's test_command on the working tree (rebuilding first if the files changed), output in rounds/round-N/artifacts/test.log (its tail is returned). Correctness before performance: a failure is a result (ok: false); fix it inside the round and run again, the round keeps its number. Long: progress, cancellation, or async: true + poll_job.";
  FlatSchema s;
  s.campaignDir().async();
  t.inputSchema = s.build();
  t.outputSchema = stepOutputSchema();
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = false;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = longHandler("run_tests", deps.jobs, [engine](const json& args, const campaign::CallContext& ctx) {
    return respond<campaign::StepResult>(engine->runTests({argString(args, "campaign_dir")}, ctx), stepResultJson,
                                         stepResultText);
  });
  return t;
}

}  // namespace kopt::tools
