#include "tools/run_quick_bench_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeRunQuickBenchTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "run_quick_bench";
  t.title = "Measure the candidate against the current best";
  t.description =
      "OPTIMIZE/VALIDATE (open round): kopt runs the quick bench itself (full: true = the full benchmark on all "
      "target shapes): the candidate (your working tree, rebuilt if needed) and the current best (a worktree of the "
      "last accepted commit) alternate in fresh processes, `pairs` pairs (default: the manifest's), each pair with a "
      "secret seed. kopt writes rounds/round-N/artifacts/benchmark.csv from its own runs; it never reads a CSV you "
      "write. Returns per-shape ratios with confidence intervals and the gate's preview; only validate_round decides. "
      "Long: progress, cancellation, or async: true + poll_job.";
  FlatSchema s;
  s.campaignDir()
      .boolean("full", "Run the full benchmark on all target shapes instead of the quick one")
      .integer("pairs", "Interleaved pairs to run (default: the manifest's gate.pairs)", false, 1, 50)
      .async();
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .integer("round")
                       .string("kind")
                       .integer("pairs")
                       .prop("shapes", shapeRowSchema())
                       .prop("aggregate", aggregateSchema())
                       .string("preview")
                       .prop("reasons", reasonsSchema())
                       .string("benchmark_csv")
                       .string("runs_dir")
                       .phase()
                       .jobFields()
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = longHandler("run_quick_bench", deps.jobs, [engine](const json& args, const campaign::CallContext& ctx) {
    campaign::BenchRequest q;
    q.campaignDir = argString(args, "campaign_dir");
    q.full = argBool(args, "full");
    q.pairs = static_cast<int>(argInt(args, "pairs").value_or(0));
    return respond<campaign::BenchResult>(
        engine->runQuickBench(q, ctx),
        [](const campaign::BenchResult& r) {
          return json{{"round", r.round},       {"kind", r.kind},
                      {"pairs", r.pairs},       {"shapes", shapeRowsJson(r.shapes)},
                      {"aggregate", aggregateJson(r.aggregate)},
                      {"preview", r.preview},   {"reasons", reasonsJson(r.reasons)},
                      {"benchmark_csv", r.benchmarkCsv},
                      {"runs_dir", r.runsDir},  {"phase", campaign::toString(r.phase)}};
        },
        [](const campaign::BenchResult& r) {
          std::string text = "Round " + std::to_string(r.round) + " " + r.kind + " bench, " + std::to_string(r.pairs) +
                             " interleaved pairs (candidate vs current best):\n" + shapeTable(r.shapes) +
                             "Gate preview: " + r.preview + " (informational; validate_round decides)";
          for (const auto& reason : r.reasons) text += "\n- " + reason.message;
          return text;
        });
  });
  return t;
}

}  // namespace kopt::tools
