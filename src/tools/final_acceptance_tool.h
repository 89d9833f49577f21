#pragma once
// `final_acceptance`: the best build against the baseline on all target shapes, plus the full tests.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeFinalAcceptanceTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
