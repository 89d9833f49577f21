#include "tools/begin_round_tool.h"

#include "util/text.h"

namespace kopt::tools {

mcp::ToolSpec makeBeginRoundTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "begin_round";
  t.title = "Begin a round with one hypothesis";
  t.description =
      "ANALYZE -> OPTIMIZE: opens the next round (number = last + 1, never reused) with exactly one hypothesis, stated "
      "before any number of the round exists: the statement ('I expect X to improve because Y'), the one change, the "
      "expected effect (metric, direction, size in percent), the Rule-11 bucket (K1 kernel-internal, K2 layout, K3 "
      "single-launch fusion, K4 same-call data flow, W1 weight cache; W2/W3 are refused) and the files it will touch "
      "(inside kernel_source). validate_round later refuses any change outside these files. config_only allows an "
      "empty diff. One open round at a time. The hypothesis is frozen (hashed into the ledger).";
  FlatSchema s;
  s.campaignDir()
      .string("statement", "I expect <metric> to <improve> because <reason>", true)
      .string("change", "The one change this round makes (one line)", true)
      .string("expected_metric", "The metric the change should move (default: the primary metric)")
      .enumeration("expected_direction", {"increase", "decrease"}, "Which way (default increase)")
      .number("expected_size_pct", "Predicted size of the effect, percent (> 0)", true)
      .enumeration("rule11_bucket", {"K1", "K2", "K3", "K4", "W1", "W2", "W3"}, "Rule-11 bucket of the change", true)
      .strings("files", "Repository files (or directories) the change will touch; all inside kernel_source", true)
      .boolean("config_only", "A config-only sweep of the same kernel code (an empty diff is then allowed)")
      .string("bottleneck", "The diagnosed bottleneck (optional)")
      .string("risk", "The risk of the change (optional)");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .integer("round", true)
                       .string("lineage_head")
                       .strings("declared_files")
                       .boolean("config_only")
                       .string("hypothesis_sha256")
                       .strings("already_changed")
                       .phase()
                       .string("next_tool")
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("begin_round", [&] {
      campaign::BeginRoundRequest q;
      q.campaignDir = argString(args, "campaign_dir");
      auto& h = q.hypothesis;
      h.statement = argString(args, "statement");
      h.change = argString(args, "change");
      h.expected.metric = argString(args, "expected_metric");
      h.expected.direction = argString(args, "expected_direction", "increase") == "decrease"
                                 ? campaign::records::EffectDirection::Decrease
                                 : campaign::records::EffectDirection::Increase;
      h.expected.sizePct = argNumber(args, "expected_size_pct").value_or(0.0);
      q.bucketText = argString(args, "rule11_bucket");
      auto bucket = campaign::records::rule11BucketFromString(q.bucketText);
      if (!bucket) {
        return mcp::ToolResult::error("'" + q.bucketText + "' is not a Rule-11 bucket", "rule11_bucket",
                                      "one of K1, K2, K3, K4, W1 (W2/W3 are forbidden)");
      }
      h.bucket = *bucket;
      h.files = argStrings(args, "files").value_or(std::vector<std::string>{});
      h.configOnly = argBool(args, "config_only");
      h.bottleneck = argString(args, "bottleneck");
      h.risk = argString(args, "risk");
      return respond<campaign::BeginRoundResult>(
          engine->beginRound(q),
          [](const campaign::BeginRoundResult& r) {
            return json{{"round", r.round},
                        {"lineage_head", r.lineageHead},
                        {"declared_files", r.declaredFiles},
                        {"config_only", r.configOnly},
                        {"hypothesis_sha256", r.hypothesisSha256},
                        {"already_changed", r.alreadyChanged},
                        {"phase", campaign::toString(r.phase)},
                        {"next_tool", "rebuild_kernel"}};
          },
          [](const campaign::BeginRoundResult& r) {
            std::string text = "Round " + std::to_string(r.round) + " is open on " + r.lineageHead.substr(0, 12) +
                               ". Edit only: " + util::join(r.declaredFiles, ", ") +
                               ". Then rebuild_kernel, run_tests, run_quick_bench (optional) and validate_round.";
            if (!r.alreadyChanged.empty()) text += "\nAlready differing from the head: " + util::join(r.alreadyChanged, ", ");
            return text;
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
