#pragma once
// `run_baseline`: round-1: build, tests, full bench with A/A calibration, representative shapes, frozen set.
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRunBaselineTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
