#include "tools/confirm_target_tool.h"

#include "tools/elicitation_questions.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::ConfirmTargetResult& r) {
  return "Target confirmed by " + r.confirmedBy + " (" + r.method + "); the manifest is recorded (sha256 " +
         r.manifestSha256.substr(0, 12) + "..). Next: prepare_environment.";
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
        if (auto notAsked = askToConfirmTarget(*engine, ctx, q)) return *notAsked;
      }
      return respond<campaign::ConfirmTargetResult>(engine->confirmTarget(q), resultJson<campaign::ConfirmTargetResult>,
                                                    summaryText);
    });
  };
  return t;
}

}  // namespace kopt::tools
