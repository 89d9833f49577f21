#include "tools/read_best_summary_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::BestSummaryResult& r) {
  if (!r.round) return r.note;
  return "Best round " + std::to_string(*r.round) + " (" + r.source + "):\n\n" + r.body;
}

}  // namespace

mcp::ToolSpec makeReadBestSummaryTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<PagedArgs, campaign::BestSummaryResult>(
      {"read_best_summary", "Read the best round's summary",
       "Read-only: summary.md of the current best round (the baseline until a round is accepted). Same fields as the "
       "turbo helper's read_best_summary; the body is paged with offset/limit."},
      [engine](const PagedArgs& a) {
        return paged(engine->readBestSummary(a.campaignDir), &campaign::BestSummaryResult::body, a, "summary.md");
      },
      summaryText, PagedArgs::through("summary"));
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
