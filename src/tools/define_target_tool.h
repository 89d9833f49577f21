#pragma once
// `define_target`: the campaign parameters (manifest), written as a draft that waits for the user's confirmation.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeDefineTargetTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
