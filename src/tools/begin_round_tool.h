#pragma once
// `begin_round`: opens the next round with exactly one structured hypothesis, before any number of it exists.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeBeginRoundTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
