#include "tools/append_tip_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeAppendTipTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::AppendTipRequest, campaign::AppendTipResult>(
      {"append_tip", "Append a historical tip",
       "Appends one entry ('### <date> round-<N> — <STATUS>' with Context, Signal, Takeaway, Applicability) to the "
       "shared tips file <tips_root>/<gpu>/<op>/<backend>/tips.md, under a file lock so parallel campaigns never "
       "interleave. op/backend/gpu default to the campaign's. Same fields as the turbo helper's append_tip."},
      [engine](const campaign::AppendTipRequest& q) { return engine->appendTip(q); },
      [](const campaign::AppendTipResult& r) { return "Tip appended to " + r.path; });
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = false;
  t.annotations.idempotentHint = false;
  t.annotations.openWorldHint = false;
  return t;
}

}  // namespace kopt::tools
