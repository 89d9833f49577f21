#pragma once
// `accept_or_revert`: applies the verdict mechanically: commit (ACCEPT) or exact restore (ROLLBACK), and the records.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeAcceptOrRevertTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
