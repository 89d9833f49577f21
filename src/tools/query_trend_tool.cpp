#include "tools/query_trend_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::TrendResult& r) {
  std::string text = std::to_string(r.rows.size()) + " trend rows; rollback streak " + std::to_string(r.rollbackStreak) +
                     "; best round " + (r.currentBestRound ? std::to_string(*r.currentBestRound) : std::string("none")) +
                     ".";
  for (const auto& v : r.rows) text += "\n  round-" + std::to_string(v.round) + " " + v.status + ": " + v.description;
  return text;
}

}  // namespace

mcp::ToolSpec makeQueryTrendTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<TrendArgs, campaign::TrendResult>(
      {"query_trend", "Query the performance trend",
       "Read-only: the last `limit` rows of the campaign's trend (round, status, description, fwd/bwd avg and peak, "
       "step geomean, vs-baseline percentages, key finding), the rollback streak and the current best round and "
       "score. Same fields as the turbo helper's query_trend."},
      [engine](const TrendArgs& a) { return engine->queryTrend(a.campaignDir, a.limit); }, summaryText);
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
