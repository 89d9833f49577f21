#pragma once
// `list_ineffective_directions`: the rolled-back directions (the turbo helper's fields).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeListIneffectiveDirectionsTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
