#include "tools/report_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeReportTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<PagedArgs, campaign::ReportResult>(
      {"report", "Write the campaign report",
       "REPORT -> DONE: writes report.md (baseline vs best, accepted and rolled-back rounds, effective and "
       "ineffective directions, the rule-11 real-training audit, final acceptance) with report-metric.svg and "
       "report-heatmap.svg, and appends the Final Report section to logs/optimize.md. Returns the markdown (paged "
       "with offset/limit)."},
      [engine](const PagedArgs& a) {
        return paged(engine->report(a.campaignDir), &campaign::ReportResult::markdown, a, "report.md");
      },
      [](const campaign::ReportResult& r) { return "Report written to " + r.reportPath + "\n\n" + r.markdown; },
      PagedArgs::through("report"));
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
