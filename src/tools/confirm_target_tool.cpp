#include "tools/confirm_target_tool.h"

#include "tools/typed_tool.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::ConfirmTargetResult& r) {
  return "Target confirmed by " + r.confirmedBy + " (" + r.method + "); the manifest is recorded (sha256 " +
         r.manifestSha256.substr(0, 12) + "..). Next: prepare_environment.";
}

// Asks the user through MCP elicitation and fills q's confirmation from the answer; an error
// result when the question could not be asked.
std::optional<mcp::ToolResult> askTheUser(campaign::CampaignEngine& engine, mcp::RequestContext& ctx,
                                          campaign::ConfirmTargetRequest& q) {
  auto summary = engine.targetSummary(q.campaignDir);
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
  return std::nullopt;
}

}  // namespace

mcp::ToolSpec makeConfirmTargetTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = typedSpec<campaign::ConfirmTargetRequest, campaign::ConfirmTargetResult>(
      {"confirm_target", "Confirm the target with the user",
       "DEFINE_TARGET -> PREPARE_ENVIRONMENT: the user confirms the campaign defined by define_target. When your "
       "client supports MCP elicitation, kopt asks the user directly (the confirm/confirmed_by arguments are then "
       "ignored). Otherwise show the user the summary define_target returned, and pass confirm: true with "
       "confirmed_by = the name of the person who confirmed; kopt records who confirmed in the ledger. A decline is "
       "refused and nothing changes."});
  t.annotations = campaignWriteAnnotations();
  t.handler = [engine](const json& args, mcp::RequestContext& ctx) {
    return guarded("confirm_target", [&] {
      campaign::ConfirmTargetRequest q;
      if (auto problem = readArguments(args, q)) return argumentError(*problem);
      q.method = "argument";
      if (ctx.client().supportsElicitation()) {
        if (auto notAsked = askTheUser(*engine, ctx, q)) return *notAsked;
      }
      return respond<campaign::ConfirmTargetResult>(engine->confirmTarget(q), resultJson<campaign::ConfirmTargetResult>,
                                                    summaryText);
    });
  };
  return t;
}

}  // namespace kopt::tools
