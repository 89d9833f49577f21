#pragma once
// `poll_job`: the state, progress and (when finished) the result of a call started with async: true.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makePollJobTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
