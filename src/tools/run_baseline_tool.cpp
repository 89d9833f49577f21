#include "tools/run_baseline_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeRunBaselineTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<CampaignDirArgs, campaign::BaselineResult>(
      toolText("run_baseline"), deps.jobs,
      [engine](const CampaignDirArgs& a, const campaign::CallContext& ctx) {
        return engine->runBaseline(a.campaignDir, ctx);
      });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
