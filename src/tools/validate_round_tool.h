#pragma once
// `validate_round`: the referee's checks and the statistical verdict on the open round.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeValidateRoundTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
