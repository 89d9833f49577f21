#pragma once
// `query_trend`: the trend table's rows (the turbo helper's fields).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeQueryTrendTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
