#include "tools/campaign_listing.h"

#include "tools/field_writer.h"
#include "tools/result_fields.h"

namespace kopt::tools {

mcp::ToolResult listingResult(const std::vector<campaign::CampaignListing>& campaigns) {
  json list = json::array();
  std::string text;
  for (const auto& c : campaigns) {
    list.push_back(resultJson(c));
    text += "\n  " + c.campaignDir + ": " + campaign::toString(c.phase) + ", round " + std::to_string(c.lastRound) +
            (c.openRound ? " (open)" : "");
  }
  mcp::ToolResult r;
  r.content.push_back(mcp::textContent(list.empty() ? "No campaign under the workspace; define_target starts one."
                                                    : std::to_string(list.size()) + " campaign(s):" + text +
                                                          "\nCall campaign_status with one campaign_dir."));
  r.structuredContent = json{{"campaigns", list}};
  return r;
}

}  // namespace kopt::tools
