#include "tools/confirm_target_tool.h"

#include "campaign/engine_phase_table.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

json resultJson(const campaign::ConfirmTargetResult& r) {
  return json{{"confirmed_by", r.confirmedBy},
              {"method", r.method},
              {"manifest_sha256", r.manifestSha256},
              {"phase", campaign::toString(r.phase)},
              {"next_tool", campaign::nextToolFor(r.phase)}};
}

std::string resultText(const campaign::ConfirmTargetResult& r) {
  return "Target confirmed by " + r.confirmedBy + " (" + r.method + "); the manifest is recorded (sha256 " +
         r.manifestSha256.substr(0, 12) + "..). Next: prepare_environment.";
}

}  // namespace

mcp::ToolSpec makeConfirmTargetTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "confirm_target";
  t.title = "Confirm the target with the user";
  t.description =
      "DEFINE_TARGET -> PREPARE_ENVIRONMENT: the user confirms the campaign defined by define_target. When your client "
      "supports MCP elicitation, kopt asks the user directly (the confirm/confirmed_by arguments are then ignored). "
      "Otherwise show the user the summary define_target returned, and pass confirm: true with confirmed_by = the name "
      "of the person who confirmed; kopt records who confirmed in the ledger. A decline is refused and nothing changes.";
  FlatSchema s;
  s.campaignDir()
      .boolean("confirm", "true when the user confirmed the target (clients without elicitation)")
      .string("confirmed_by", "Who confirmed it (a person's name; clients without elicitation)");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("confirmed_by", true)
                       .string("method")
                       .string("manifest_sha256")
                       .phase()
                       .string("next_tool")
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext& ctx) {
    return guarded("confirm_target", [&] {
      campaign::ConfirmTargetRequest q;
      q.campaignDir = argString(args, "campaign_dir");
      if (ctx.client().supportsElicitation()) {
        auto summary = engine->targetSummary(q.campaignDir);
        if (!summary.ok()) return summary.refused() ? refusalResult(summary.refusal()) : failureResult(summary.failure());
        json params{
            {"message", "kopt: please confirm this kernel-optimization campaign before anything changes on disk.\n\n" +
                            summary.value().summary},
            {"requestedSchema",
             {{"type", "object"},
              {"properties",
               {{"confirm", {{"type", "boolean"}, {"title", "Confirm the campaign"}, {"description", "Start this campaign"}}},
                {"name", {{"type", "string"}, {"title", "Your name"}, {"description", "Recorded as who confirmed"}}}}},
              {"required", {"confirm"}}}}};
        std::string error;
        auto answer = ctx.requestClient("elicitation/create", params, std::chrono::minutes(30), &error);
        if (!answer) {
          return mcp::ToolResult::error("could not ask the user (" + error + "); nothing was confirmed", "",
                                        "call confirm_target again");
        }
        const std::string action = answer->value("action", "");
        const json content = answer->value("content", json::object());
        q.method = "elicitation";
        q.confirm = action == "accept" && content.value("confirm", false);
        std::string name = util::trim(content.value("name", ""));
        q.confirmedBy = "elicitation:" + (ctx.client().name.empty() ? std::string("client") : ctx.client().name) +
                        (name.empty() ? "" : ":" + name);
      } else {
        q.method = "argument";
        q.confirm = argBool(args, "confirm");
        q.confirmedBy = argString(args, "confirmed_by");
      }
      return respond<campaign::ConfirmTargetResult>(engine->confirmTarget(q), resultJson, resultText);
    });
  };
  return t;
}

}  // namespace kopt::tools
