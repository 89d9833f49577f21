#include "tools/query_tips_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeQueryTipsTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "query_tips";
  t.title = "Query the historical tips";
  t.description =
      "Read-only: the '### ' entries of <tips_root>/<gpu>/<op>/<backend>/tips.md whose text contains every keyword "
      "(case-insensitive; empty = all). op/backend/gpu default to the campaign's when campaign_dir is given. Same "
      "fields as the turbo helper's query_tips.";
  FlatSchema s;
  s.string("campaign_dir", "A campaign whose op/backend/gpu (and tips_root) to use")
      .string("op", "target_op")
      .string("backend", "target_backend (any case)")
      .string("gpu", "target_gpu (arch)")
      .string("keyword", "Space-separated keywords, all must match")
      .string("tips_root", "Override the tips root (inside the workspace)");
  t.inputSchema = s.build();
  json item{{"type", "object"},
            {"properties", {{"heading", {{"type", "string"}}}, {"body", {{"type", "string"}}}}},
            {"required", {"heading", "body"}}};
  t.outputSchema = OutputSchema()
                       .string("path")
                       .prop("items", {{"type", "array"}, {"items", item}}, true)
                       .integer("count")
                       .string("note")
                       .build();
  t.annotations.readOnlyHint = true;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("query_tips", [&] {
      campaign::TipsQueryRequest q;
      q.campaignDir = argString(args, "campaign_dir");
      q.op = argString(args, "op");
      q.backend = argString(args, "backend");
      q.gpu = argString(args, "gpu");
      q.keyword = argString(args, "keyword");
      q.tipsRoot = argString(args, "tips_root");
      return respond<campaign::TipsQueryResult>(
          engine->queryTips(q),
          [](const campaign::TipsQueryResult& r) {
            json items = json::array();
            for (const auto& [heading, body] : r.items) items.push_back({{"heading", heading}, {"body", body}});
            json j{{"items", items}, {"count", r.items.size()}};
            if (!r.path.empty()) j["path"] = r.path;
            if (!r.note.empty()) j["note"] = r.note;
            return j;
          },
          [](const campaign::TipsQueryResult& r) {
            std::string text = std::to_string(r.items.size()) + " tip(s)" + (r.path.empty() ? "" : " from " + r.path) +
                               (r.note.empty() ? "" : " (" + r.note + ")");
            for (const auto& [heading, body] : r.items) text += "\n\n" + body;
            return text;
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
