#include "tools/begin_round_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeBeginRoundTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::BeginRoundRequest, campaign::BeginRoundResult>(
      toolText("begin_round"), [engine](const campaign::BeginRoundRequest& a) { return engine->beginRound(a); });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
