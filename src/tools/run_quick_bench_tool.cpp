#include "tools/run_quick_bench_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::BenchResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " " + r.kind + " bench, " + std::to_string(r.pairs) +
                     " interleaved pairs (candidate vs current best):\n" + shapeTable(r.shapes) +
                     "Gate preview: " + r.preview + " (informational; validate_round decides)";
  for (const auto& reason : r.reasons) text += "\n- " + reason.message;
  return text;
}

}  // namespace

mcp::ToolSpec makeRunQuickBenchTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::BenchRequest, campaign::BenchResult>(
      {"run_quick_bench", "Measure the candidate against the current best",
       "OPTIMIZE/VALIDATE (open round): kopt runs the quick bench itself (full: true = the full benchmark on all "
       "target shapes): the candidate (your working tree, rebuilt if needed) and the current best (a worktree of the "
       "last accepted commit) alternate in fresh processes, `pairs` pairs (default: the manifest's), each pair with "
       "a secret seed. kopt writes rounds/round-N/artifacts/benchmark.csv from its own runs; it never reads a CSV you "
       "write. Returns per-shape ratios with confidence intervals and the gate's preview; only validate_round "
       "decides. Long: progress, cancellation, or async: true + poll_job."},
      deps.jobs,
      [engine](const campaign::BenchRequest& q, const campaign::CallContext& ctx) { return engine->runQuickBench(q, ctx); },
      summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
