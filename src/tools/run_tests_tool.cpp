#include "tools/run_tests_tool.h"

#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRunTestsTool(const CampaignToolDeps& deps) {
  return makeStepTool(
      deps, "run_tests", "Run the correctness tests",
      "OPTIMIZE/VALIDATE (open round): runs the manifest's test_command on the working tree (rebuilding first if the "
      "files changed), output in rounds/round-N/artifacts/test.log (its tail is returned). Correctness before "
      "performance: a failure is a result (ok: false); fix it inside the round and run again, the round keeps its "
      "number. Long: progress, cancellation, or async: true + poll_job.",
      &campaign::CampaignEngine::runTests);
}

}  // namespace kopt::tools
