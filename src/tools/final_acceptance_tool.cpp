#include "tools/final_acceptance_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeFinalAcceptanceTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::FinalAcceptanceRequest, campaign::FinalAcceptanceResult>(
      toolText("final_acceptance"), deps.jobs,
      [engine](const campaign::FinalAcceptanceRequest& a, const campaign::CallContext& ctx) {
        return engine->finalAcceptance(a, ctx);
      });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
