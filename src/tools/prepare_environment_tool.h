#pragma once
// `prepare_environment`: the campaign branch, the campaign directory, the frozen manifest, the quick harness.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makePrepareEnvironmentTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
