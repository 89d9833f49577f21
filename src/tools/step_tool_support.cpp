#include "tools/step_tool_support.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeStepTool(const CampaignToolDeps& deps, const std::string& name, const std::string& title,
                           const std::string& description, StepRunner run) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::StepRequest, campaign::StepResult>(
      {name, title, description}, deps.jobs,
      [engine, run](const campaign::StepRequest& q, const campaign::CallContext& ctx) { return ((*engine).*run)(q, ctx); },
      stepResultText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

std::string stepResultText(const campaign::StepResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " " + r.step + ": " + (r.ok ? "ok" : "FAILED") + " (" +
                     r.outcome + ", " + std::to_string(r.wallMs) + " ms). Log: " + r.logPath;
  if (!r.logTail.empty()) text += "\n--- log tail ---\n" + r.logTail;
  return text;
}

}  // namespace kopt::tools
