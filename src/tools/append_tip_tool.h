#pragma once
// `append_tip`: appends one tip to the shared tips file under a lock (the turbo helper's fields).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeAppendTipTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
