#pragma once
// `rebuild_kernel`: runs the manifest's build command on the working tree (artifacts/build.log).
#include "mcp/tool_api.h"
#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRebuildKernelTool(const CampaignToolDeps& deps);

}  // namespace kopt::tools
