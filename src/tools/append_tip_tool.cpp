#include "tools/append_tip_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeAppendTipTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::AppendTipRequest, campaign::AppendTipResult>(
      toolText("append_tip"), [engine](const campaign::AppendTipRequest& a) { return engine->appendTip(a); });
  t.annotations = campaignWriteAnnotations();
  t.annotations.idempotentHint = false;  // each call appends one more entry
  return t;
}

}  // namespace kopt::tools
