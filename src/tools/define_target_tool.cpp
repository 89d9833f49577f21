#include "tools/define_target_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeDefineTargetTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::DefineTargetRequest, campaign::DefineTargetResult>(
      toolText("define_target"), [engine](const campaign::DefineTargetRequest& a) { return engine->defineTarget(a); });
  t.annotations = campaignWriteAnnotations();
  t.annotations.idempotentHint = true;  // calling it again replaces the unconfirmed draft
  return t;
}

}  // namespace kopt::tools
