#include "tools/list_ineffective_directions_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeListIneffectiveDirectionsTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<CampaignDirArgs, campaign::IneffectiveResult>(
      toolText("list_ineffective_directions"),
      [engine](const CampaignDirArgs& a) { return engine->listIneffectiveDirections(a.campaignDir); });
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
