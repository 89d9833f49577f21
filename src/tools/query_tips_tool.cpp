#include "tools/query_tips_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::TipsQueryResult& r) {
  std::string text = std::to_string(r.items.size()) + " tip(s)" + (r.path.empty() ? "" : " from " + r.path) +
                     (r.note.empty() ? "" : " (" + r.note + ")");
  for (const auto& [heading, body] : r.items) text += "\n\n" + body;
  return text;
}

}  // namespace

mcp::ToolSpec makeQueryTipsTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::TipsQueryRequest, campaign::TipsQueryResult>(
      {"query_tips", "Query the historical tips",
       "Read-only: the '### ' entries of <tips_root>/<gpu>/<op>/<backend>/tips.md whose text contains every keyword "
       "(case-insensitive; empty = all). op/backend/gpu default to the campaign's when campaign_dir is given. Same "
       "fields as the turbo helper's query_tips."},
      [engine](const campaign::TipsQueryRequest& q) { return engine->queryTips(q); }, summaryText);
  t.annotations = campaignReadAnnotations();
  return t;
}

}  // namespace kopt::tools
