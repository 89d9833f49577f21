#pragma once
// `read_tips`: the historical tips for this op/backend/gpu, read before the baseline.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeReadTipsTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
