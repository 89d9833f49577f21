#pragma once
// `campaign_status`: where the campaign stands, what was interrupted, and what to call next.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeCampaignStatusTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
