#pragma once
// `termination_check`: T1-T4 and the stagnation review after two rollbacks in a row.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeTerminationCheckTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
