#pragma once
// `query_tips`: the historical tips, filtered by keyword (the turbo helper's fields).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeQueryTipsTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
