#include "tools/query_trend_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeQueryTrendTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<TrendArgs, campaign::TrendResult>(
      toolText("query_trend"), [engine](const TrendArgs& a) { return engine->queryTrend(a.campaignDir, a.limit); });
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
