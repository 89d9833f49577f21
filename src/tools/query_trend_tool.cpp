#include "tools/query_trend_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeQueryTrendTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "query_trend";
  t.title = "Query the performance trend";
  t.description =
      "Read-only: the last `limit` rows of the campaign's trend (round, status, description, fwd/bwd avg and peak, "
      "step geomean, vs-baseline percentages, key finding), the rollback streak and the current best round and "
      "score. Same fields as the turbo helper's query_trend.";
  FlatSchema s;
  s.campaignDir().integer("limit", "How many of the latest rows (default 10)", false, 1, 1000);
  t.inputSchema = s.build();
  json n = nullable("number");
  json row{{"type", "object"},
           {"properties",
            {{"round", {{"type", "integer"}}},
             {"status", {{"type", "string"}}},
             {"description", {{"type", "string"}}},
             {"fwd_avg", n},
             {"fwd_peak", n},
             {"bwd_avg", n},
             {"bwd_peak", n},
             {"step_geomean", n},
             {"vs_baseline_step_pct", n},
             {"vs_baseline_fwd_pct", n},
             {"vs_baseline_bwd_pct", n},
             {"key_finding", {{"type", "string"}}}}},
           {"required", {"round", "status"}}};
  t.outputSchema = OutputSchema()
                       .string("campaign_dir", true)
                       .string("source")
                       .prop("rows", {{"type", "array"}, {"items", row}}, true)
                       .integer("rollback_streak")
                       .prop("current_best_round", nullable("integer"))
                       .prop("current_best_score", {{"type", "object"}})
                       .build();
  t.annotations.readOnlyHint = true;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("query_trend", [&] {
      return respond<campaign::TrendResult>(
          engine->queryTrend(argString(args, "campaign_dir"), static_cast<int>(argInt(args, "limit").value_or(10))),
          [](const campaign::TrendResult& r) {
            json rows = json::array();
            for (const auto& v : r.rows) {
              rows.push_back({{"round", v.round},
                              {"status", v.status},
                              {"description", v.description},
                              {"fwd_avg", optNumber(v.fwdAvg)},
                              {"fwd_peak", optNumber(v.fwdPeak)},
                              {"bwd_avg", optNumber(v.bwdAvg)},
                              {"bwd_peak", optNumber(v.bwdPeak)},
                              {"step_geomean", optNumber(v.stepGeomean)},
                              {"vs_baseline_step_pct", optNumber(v.vsBaselineStepPct)},
                              {"vs_baseline_fwd_pct", optNumber(v.vsBaselineFwdPct)},
                              {"vs_baseline_bwd_pct", optNumber(v.vsBaselineBwdPct)},
                              {"key_finding", v.keyFinding}});
            }
            json score = json::object();
            for (const auto& [k, v] : r.currentBestScore) score[k] = v;
            return json{{"campaign_dir", r.campaignDir},
                        {"source", r.source},
                        {"rows", rows},
                        {"rollback_streak", r.rollbackStreak},
                        {"current_best_round", r.currentBestRound ? json(*r.currentBestRound) : json(nullptr)},
                        {"current_best_score", score}};
          },
          [](const campaign::TrendResult& r) {
            std::string text = std::to_string(r.rows.size()) + " trend rows; rollback streak " +
                               std::to_string(r.rollbackStreak) + "; best round " +
                               (r.currentBestRound ? std::to_string(*r.currentBestRound) : std::string("none")) + ".";
            for (const auto& v : r.rows) text += "\n  round-" + std::to_string(v.round) + " " + v.status + ": " + v.description;
            return text;
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
