#pragma once
// `report`: report.md and its charts, and the Final Report section of optimize.md.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeReportTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
