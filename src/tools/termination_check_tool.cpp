#include "tools/termination_check_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeTerminationCheckTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::TerminationRequest, campaign::TerminationResult>(
      toolText("termination_check"),
      [engine](const campaign::TerminationRequest& a) { return engine->terminationCheck(a); });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
