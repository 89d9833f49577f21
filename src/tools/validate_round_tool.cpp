#include "tools/validate_round_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeValidateRoundTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::ValidateRequest, campaign::ValidateResult>(
      toolText("validate_round"), deps.jobs,
      [engine](const campaign::ValidateRequest& a, const campaign::CallContext& ctx) {
        return engine->validateRound(a, ctx);
      });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
