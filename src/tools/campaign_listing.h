#pragma once
// campaign_status without campaign_dir: the campaigns found under the workspace, as
// {"campaigns": [...]} with one line of text per campaign (no JSON mirror: the list is the answer).
#include <vector>

#include "tools/tool_support.h"

namespace kopt::tools {

mcp::ToolResult listingResult(const std::vector<campaign::CampaignListing>& campaigns);

}  // namespace kopt::tools
