#include "tools/run_baseline_tool.h"

#include "campaign/engine_phase_table.h"
#include "measure/percent_format.h"

namespace kopt::tools {

mcp::ToolSpec makeRunBaselineTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "run_baseline";
  t.title = "Run the baseline (round-1)";
  t.description =
      "BASELINE -> ANALYZE: kopt builds and tests the unmodified kernel, runs the full benchmark on all target shapes "
      "as an A/A calibration (the same commit in the working tree and in a best-build worktree, interleaved with secret "
      "seeds: batches between two persistent bench workers over three worker sessions, or fresh processes for a CSV "
      "harness) to learn each shape's noise and check the harness (no A/A bias, the target minimum detectable change "
      "reachable; a harness that fails is refused), chooses 3-5 representative shapes for quick "
      "validation, freezes the schema header, shape list, harness files and commands (hashes in the ledger) and "
      "snapshots the kernel as the rollback root. Long: sends progress, honours cancellation, or use async: true and "
      "poll_job.";
  FlatSchema s;
  s.campaignDir().async();
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .integer("round")
                       .string("commit")
                       .prop("shapes", shapeRowSchema())
                       .prop("aggregate", aggregateSchema())
                       .strings("representative_shapes")
                       .strings("frozen")
                       .integer("pairs")
                       .integer("aa_same_shapes")
                       .integer("aa_shapes")
                       .prop("margin_pct", {{"type", "number"}})
                       .strings("harness")
                       .integer("blocks_per_look")
                       .string("benchmark_csv")
                       .string("summary_path")
                       .phase()
                       .string("next_tool")
                       .jobFields()
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = longHandler("run_baseline", deps.jobs, [engine](const json& args, const campaign::CallContext& ctx) {
    return respond<campaign::BaselineResult>(
        engine->runBaseline(argString(args, "campaign_dir"), ctx),
        [](const campaign::BaselineResult& r) {
          return json{{"round", r.round},
                      {"commit", r.commit},
                      {"shapes", shapeRowsJson(r.shapes)},
                      {"aggregate", aggregateJson(r.aggregate)},
                      {"representative_shapes", r.representativeShapes},
                      {"frozen", r.frozen},
                      {"pairs", r.pairs},
                      {"aa_same_shapes", r.aaSameShapes},
                      {"aa_shapes", r.aaShapes},
                      {"margin_pct", r.marginPct},
                      {"harness", r.harness},
                      {"blocks_per_look", r.blocksPerLook},
                      {"benchmark_csv", r.benchmarkCsv},
                      {"summary_path", r.summaryPath},
                      {"phase", campaign::toString(r.phase)},
                      {"next_tool", campaign::nextToolFor(r.phase)}};
        },
        [](const campaign::BaselineResult& r) {
          std::string text = "Baseline recorded (round-1 at " + r.commit.substr(0, 12) + ", " + std::to_string(r.pairs) +
                             " A/A pairs; the gate calls " + std::to_string(r.aaSameShapes) + " of " +
                             std::to_string(r.aaShapes) + " shapes SAME against themselves). Every verdict's delta "
                             "is the policy margin, " + measure::percentText(r.marginPct / 100.0) + ".\n" + shapeTable(r.shapes);
          if (!r.harness.empty()) {
            text += "Harness check (3 worker sessions; each validation look runs " + std::to_string(r.blocksPerLook) +
                    " blocks per shape):\n";
            for (const auto& line : r.harness) text += "  " + line + "\n";
          }
          text += "Representative shapes: ";
          for (std::size_t i = 0; i < r.representativeShapes.size(); ++i) text += (i ? ", " : "") + r.representativeShapes[i];
          text += "\nNext: analyze, then begin_round with one hypothesis.";
          return text;
        });
  });
  return t;
}

}  // namespace kopt::tools
