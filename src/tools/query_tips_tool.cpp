#include "tools/query_tips_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeQueryTipsTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::TipsQueryRequest, campaign::TipsQueryResult>(
      toolText("query_tips"), [engine](const campaign::TipsQueryRequest& a) { return engine->queryTips(a); });
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
