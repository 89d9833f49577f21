#include "tools/campaign_status_tool.h"

#include "tools/campaign_listing.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeCampaignStatusTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = ownTool<CampaignStatusArgs, StatusOrListing>(
      toolText("campaign_status"), [engine](const CampaignStatusArgs& a, mcp::RequestContext&) {
        if (a.campaignDir.empty()) return listingResult(engine->listCampaigns());
        return typedResponse(engine->campaignStatus(a.campaignDir));
      });
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
