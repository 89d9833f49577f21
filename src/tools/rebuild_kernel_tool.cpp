#include "tools/rebuild_kernel_tool.h"

#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRebuildKernelTool(const CampaignToolDeps& deps) {
  return makeStepTool(deps, toolText("rebuild_kernel"), &campaign::CampaignEngine::rebuildKernel);
}

}  // namespace kopt::tools
