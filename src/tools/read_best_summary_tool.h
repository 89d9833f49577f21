#pragma once
// `read_best_summary`: summary.md of the current best round (the turbo helper's fields).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeReadBestSummaryTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
