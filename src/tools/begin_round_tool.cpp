#include "tools/begin_round_tool.h"

#include "tools/typed_tool_spec.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::BeginRoundResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " is open on " + r.lineageHead.substr(0, 12) +
                     ". Edit only: " + util::join(r.declaredFiles, ", ") +
                     ". Then rebuild_kernel, run_tests, run_quick_bench (optional) and validate_round.";
  if (!r.alreadyChanged.empty()) text += "\nAlready differing from the head: " + util::join(r.alreadyChanged, ", ");
  return text;
}

}  // namespace

mcp::ToolSpec makeBeginRoundTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::BeginRoundRequest, campaign::BeginRoundResult>(
      {"begin_round", "Begin a round with one hypothesis",
       "ANALYZE -> OPTIMIZE: opens the next round (number = last + 1, never reused) with exactly one hypothesis, "
       "stated before any number of the round exists: the statement ('I expect X to improve because Y'), the one "
       "change, the expected effect (metric, direction, size in percent), the Rule-11 bucket (K1 kernel-internal, K2 "
       "layout, K3 single-launch fusion, K4 same-call data flow, W1 weight cache; W2/W3 are refused) and the files it "
       "will touch (inside kernel_source). validate_round later refuses any change outside these files. config_only "
       "allows an empty diff. One open round at a time. The hypothesis is frozen (hashed into the ledger)."},
      [engine](const campaign::BeginRoundRequest& q) { return engine->beginRound(q); }, summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
