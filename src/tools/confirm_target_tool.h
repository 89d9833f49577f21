#pragma once
// `confirm_target`: the user confirms the target (MCP elicitation when the client supports it, else confirm + confirmed_by).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeConfirmTargetTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
