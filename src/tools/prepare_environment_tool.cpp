#include "tools/prepare_environment_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makePrepareEnvironmentTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<CampaignDirArgs, campaign::PrepareEnvironmentResult>(
      toolText("prepare_environment"),
      [engine](const CampaignDirArgs& a) { return engine->prepareEnvironment(a.campaignDir); });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
