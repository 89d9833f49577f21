#include "tools/read_best_summary_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeReadBestSummaryTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<PagedArgs, campaign::BestSummaryResult>(
      toolText("read_best_summary"),
      [engine](const PagedArgs& a) {
        return paged(engine->readBestSummary(a.campaignDir), &campaign::BestSummaryResult::body, a, "summary.md");
      },
      PagedArgs::through("summary"));
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
