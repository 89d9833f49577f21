#include "tools/report_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeReportTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "report";
  t.title = "Write the campaign report";
  t.description =
      "REPORT -> DONE: writes report.md (baseline vs best, accepted and rolled-back rounds, effective and ineffective "
      "directions, the rule-11 real-training audit, final acceptance) with report-metric.svg and report-heatmap.svg, "
      "and appends the Final Report section to logs/optimize.md. Returns the markdown (paged with offset/limit).";
  FlatSchema s;
  s.campaignDir();
  paging(s, "report");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("report_path", true)
                       .strings("files")
                       .string("markdown")
                       .phase()
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("report", [&] {
      const std::size_t offset = static_cast<std::size_t>(argInt(args, "offset").value_or(0));
      const std::size_t limit = static_cast<std::size_t>(argInt(args, "limit").value_or(kTextLimit));
      return respond<campaign::ReportResult>(
          engine->report(argString(args, "campaign_dir")),
          [&](const campaign::ReportResult& r) {
            return json{{"report_path", r.reportPath},
                        {"files", r.files},
                        {"markdown", pageText(r.markdown, offset, limit, "report.md")},
                        {"phase", campaign::toString(r.phase)}};
          },
          [&](const campaign::ReportResult& r) {
            return "Report written to " + r.reportPath + "\n\n" + pageText(r.markdown, offset, limit, "report.md");
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
