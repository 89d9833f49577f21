#include "tools/append_tip_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeAppendTipTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "append_tip";
  t.title = "Append a historical tip";
  t.description =
      "Appends one entry ('### <date> round-<N> — <STATUS>' with Context, Signal, Takeaway, Applicability) to the "
      "shared tips file <tips_root>/<gpu>/<op>/<backend>/tips.md, under a file lock so parallel campaigns never "
      "interleave. op/backend/gpu default to the campaign's. Same fields as the turbo helper's append_tip.";
  FlatSchema s;
  s.string("campaign_dir", "A campaign whose op/backend/gpu (and tips_root) to use")
      .string("op", "target_op")
      .string("backend", "target_backend")
      .string("gpu", "target_gpu (arch)")
      .string("tips_root", "Override the tips root (inside the workspace)")
      .integer("round", "The round the tip comes from", false, 1)
      .string("status", "ACCEPTED (default), ROLLED BACK, ...")
      .string("context", "What was tried")
      .string("signal", "What was measured")
      .string("takeaway", "What to remember", true)
      .string("applicability", "Where it applies");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema().string("path", true).boolean("ok", true).build();
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = false;
  t.annotations.idempotentHint = false;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("append_tip", [&] {
      campaign::AppendTipRequest q;
      q.campaignDir = argString(args, "campaign_dir");
      q.op = argString(args, "op");
      q.backend = argString(args, "backend");
      q.gpu = argString(args, "gpu");
      q.tipsRoot = argString(args, "tips_root");
      if (auto r = argInt(args, "round")) q.round = static_cast<int>(*r);
      q.status = argString(args, "status");
      q.context = argString(args, "context");
      q.signal = argString(args, "signal");
      q.takeaway = argString(args, "takeaway");
      q.applicability = argString(args, "applicability");
      return respond<campaign::AppendTipResult>(
          engine->appendTip(q), [](const campaign::AppendTipResult& r) { return json{{"path", r.path}, {"ok", r.ok}}; },
          [](const campaign::AppendTipResult& r) { return "Tip appended to " + r.path; });
    });
  };
  return t;
}

}  // namespace kopt::tools
