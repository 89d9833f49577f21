#include "tools/read_tips_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeReadTipsTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<PagedArgs, campaign::ReadTipsResult>(
      toolText("read_tips"),
      [engine](const PagedArgs& a) {
        return paged(engine->readTips(a.campaignDir), &campaign::ReadTipsResult::text, a, "tips file");
      },
      PagedArgs::through("tips file"));
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
