#include "tools/validate_round_tool.h"

#include "campaign/engine_phase_table.h"

namespace kopt::tools {

mcp::ToolSpec makeValidateRoundTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "validate_round";
  t.title = "Validate the round";
  t.description =
      "OPTIMIZE/VALIDATE -> VALIDATE: the referee's verdict on the open round. Refused (nothing judged) when: frozen "
      "files/schema/commands changed, hypothesis.json was edited, HEAD moved, the diff touches files outside the "
      "declared set, the diff is empty (unless config-only), or the same files were already validated. Then, in "
      "order: build, tests, every Check PASS, schema byte-identical, shape set identical, and the statistical gate on "
      "interleaved A/B pairs (per-shape IMPROVED/SAME/REGRESSED/INCONCLUSIVE with family-wise control, aggregate "
      "CI); INCONCLUSIVE re-measures automatically up to the pair cap; a small quick win escalates to the full "
      "benchmark. Decision: ACCEPT, ACCEPT_WITH_NOTE, ROLLBACK, or AUDIT (numbers beyond speed of light or a >10x "
      "jump). Then call accept_or_revert, which applies it. Long: progress, cancellation, or async: true + poll_job.";
  FlatSchema s;
  s.campaignDir().boolean("full", "Validate with the full benchmark on all target shapes from the start").async();
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .integer("round")
                       .string("decision")
                       .prop("reasons", reasonsSchema())
                       .strings("checks")
                       .strings("changed_files")
                       .string("kind")
                       .integer("pairs")
                       .prop("shapes", shapeRowSchema())
                       .prop("aggregate", aggregateSchema())
                       .strings("flags")
                       .string("benchmark_csv")
                       .phase()
                       .string("next_tool")
                       .jobFields()
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = longHandler("validate_round", deps.jobs, [engine](const json& args, const campaign::CallContext& ctx) {
    campaign::ValidateRequest q;
    q.campaignDir = argString(args, "campaign_dir");
    q.full = argBool(args, "full");
    return respond<campaign::ValidateResult>(
        engine->validateRound(q, ctx),
        [](const campaign::ValidateResult& r) {
          return json{{"round", r.round},
                      {"decision", r.decision},
                      {"reasons", reasonsJson(r.reasons)},
                      {"checks", r.checks},
                      {"changed_files", r.changedFiles},
                      {"kind", r.kind},
                      {"pairs", r.pairs},
                      {"shapes", shapeRowsJson(r.shapes)},
                      {"aggregate", aggregateJson(r.aggregate)},
                      {"flags", r.flags},
                      {"benchmark_csv", r.benchmarkCsv},
                      {"phase", campaign::toString(r.phase)},
                      {"next_tool", campaign::nextToolFor(r.phase)}};
        },
        [](const campaign::ValidateResult& r) {
          std::string text = "Round " + std::to_string(r.round) + " verdict: " + r.decision + " (" + r.kind + ", " +
                             std::to_string(r.pairs) + " interleaved pairs)\n";
          for (const auto& c : r.checks) text += "  ok: " + c + "\n";
          text += shapeTable(r.shapes);
          for (const auto& reason : r.reasons) text += "- " + reason.message + "\n";
          for (const auto& f : r.flags) text += "AUDIT flag: " + f + "\n";
          text += "Next: accept_or_revert (kopt applies the verdict; you supply attribution and next direction" +
                  std::string(r.decision == "ROLLBACK" ? ", root_cause and lesson" : "") + ").";
          return text;
        });
  });
  return t;
}

}  // namespace kopt::tools
