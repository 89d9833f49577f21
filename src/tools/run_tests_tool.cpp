#include "tools/run_tests_tool.h"

#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRunTestsTool(const CampaignToolDeps& deps) {
  return makeStepTool(deps, toolText("run_tests"), &campaign::CampaignEngine::runTests);
}

}  // namespace kopt::tools
