#include "tools/step_tool_support.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeStepTool(const CampaignToolDeps& deps, ToolText text, StepRunner run) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::StepRequest, campaign::StepResult>(
      std::move(text), deps.jobs,
      [engine, run](const campaign::StepRequest& q, const campaign::CallContext& ctx) { return ((*engine).*run)(q, ctx); });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
