#pragma once
// `run_tests`: runs the manifest's test command on the working tree (artifacts/test.log).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRunTestsTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
