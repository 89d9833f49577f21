#include "tools/list_ineffective_directions_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeListIneffectiveDirectionsTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "list_ineffective_directions";
  t.title = "List the ineffective directions";
  t.description =
      "Read-only: every rolled-back round's direction, why it was rolled back and the files it modified, so the next "
      "hypothesis does not repeat one. Same fields as the turbo helper's list_ineffective_directions.";
  FlatSchema s;
  s.campaignDir();
  t.inputSchema = s.build();
  json item{{"type", "object"},
            {"properties",
             {{"round", {{"type", "integer"}}},
              {"direction", {{"type", "string"}}},
              {"reason", {{"type", "string"}}},
              {"modified_files", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
            {"required", {"round", "direction"}}};
  t.outputSchema = OutputSchema()
                       .string("campaign_dir", true)
                       .string("source")
                       .prop("items", {{"type", "array"}, {"items", item}}, true)
                       .build();
  t.annotations.readOnlyHint = true;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("list_ineffective_directions", [&] {
      return respond<campaign::IneffectiveResult>(
          engine->listIneffectiveDirections(argString(args, "campaign_dir")),
          [](const campaign::IneffectiveResult& r) {
            json items = json::array();
            for (const auto& i : r.items) {
              items.push_back({{"round", i.round}, {"direction", i.direction}, {"reason", i.reason}, {"modified_files", i.modifiedFiles}});
            }
            return json{{"campaign_dir", r.campaignDir}, {"source", r.source}, {"items", items}};
          },
          [](const campaign::IneffectiveResult& r) {
            std::string text = std::to_string(r.items.size()) + " ineffective direction(s).";
            for (const auto& i : r.items) text += "\n  round-" + std::to_string(i.round) + ": " + i.direction + " (" + i.reason + ")";
            return text;
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
