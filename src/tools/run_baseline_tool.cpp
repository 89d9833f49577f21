#include "tools/run_baseline_tool.h"

#include "measure/percent_format.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::BaselineResult& r) {
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
}

}  // namespace

mcp::ToolSpec makeRunBaselineTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<CampaignDirArgs, campaign::BaselineResult>(
      {"run_baseline", "Run the baseline (round-1)",
       "BASELINE -> ANALYZE: kopt builds and tests the unmodified kernel, runs the full benchmark on all target "
       "shapes as an A/A calibration (the same commit in the working tree and in a best-build worktree, interleaved "
       "with secret seeds: batches between two persistent bench workers over three worker sessions, or fresh "
       "processes for a CSV harness) to learn each shape's noise and check the harness (no A/A bias, the target "
       "minimum detectable change reachable; a harness that fails is refused), chooses 3-5 representative shapes "
       "for quick validation, freezes the schema header, shape list, harness files and commands (hashes in the "
       "ledger) and snapshots the kernel as the rollback root. Long: sends progress, honours cancellation, or use "
       "async: true and poll_job."},
      deps.jobs,
      [engine](const CampaignDirArgs& a, const campaign::CallContext& ctx) { return engine->runBaseline(a.campaignDir, ctx); },
      summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
