#pragma once
// `run_quick_bench`: candidate vs current best, interleaved in fresh processes (an informational preview).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRunQuickBenchTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
