#include "tools/list_ineffective_directions_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::IneffectiveResult& r) {
  std::string text = std::to_string(r.items.size()) + " ineffective direction(s).";
  for (const auto& i : r.items) text += "\n  round-" + std::to_string(i.round) + ": " + i.direction + " (" + i.reason + ")";
  return text;
}

}  // namespace

mcp::ToolSpec makeListIneffectiveDirectionsTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<CampaignDirArgs, campaign::IneffectiveResult>(
      {"list_ineffective_directions", "List the ineffective directions",
       "Read-only: every rolled-back round's direction, why it was rolled back and the files it modified, so the next "
       "hypothesis does not repeat one. Same fields as the turbo helper's list_ineffective_directions."},
      [engine](const CampaignDirArgs& a) { return engine->listIneffectiveDirections(a.campaignDir); }, summaryText);
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
