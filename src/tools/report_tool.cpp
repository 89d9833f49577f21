#include "tools/report_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeReportTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<PagedArgs, campaign::ReportResult>(
      toolText("report"),
      [engine](const PagedArgs& a) {
        return paged(engine->report(a.campaignDir), &campaign::ReportResult::markdown, a, "report.md");
      },
      PagedArgs::through("report"));
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
