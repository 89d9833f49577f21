#include "tools/elicitation_questions.h"

#include "util/text.h"

namespace kopt::tools {

namespace {

constexpr auto kAnswerTimeout = std::chrono::minutes(30);  // a person reads and decides

}  // namespace

std::optional<mcp::ToolResult> askToConfirmTarget(campaign::CampaignEngine& engine, mcp::RequestContext& ctx,
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
  auto answer = ctx.requestClient("elicitation/create", params, kAnswerTimeout, &error);
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

bool askForAudit(const campaign::Refusal& refusal, mcp::RequestContext& request, campaign::AcceptOrRevertRequest& q) {
  std::string flags;
  for (const auto& d : refusal.details) flags += "\n- " + d;
  json params{{"message", "kopt: the round's numbers are beyond what the hardware or one honest change can do:" + flags +
                              "\n\nDid you audit them and confirm they are real?"},
              {"requestedSchema",
               {{"type", "object"},
                {"properties",
                 {{"confirm", {{"type", "boolean"}, {"title", "The numbers are real"}}},
                  {"name", {{"type", "string"}, {"title", "Your name"}}},
                  {"note", {{"type", "string"}, {"title", "What the audit found"}}}}},
                {"required", {"confirm"}}}}};
  std::string error;
  auto answer = request.requestClient("elicitation/create", params, kAnswerTimeout, &error);
  if (!answer) return false;
  const json content = answer->value("content", json::object());
  if (answer->value("action", "") == "accept" && content.value("confirm", false)) {
    const std::string name = util::trim(content.value("name", ""));
    q.auditConfirmedBy = "elicitation:" + (name.empty() ? request.client().name : name);
    q.auditNote = content.value("note", "");
  } else {
    q.auditRejected = true;
  }
  return true;
}

campaign::Outcome<campaign::AcceptOrRevertResult> acceptOrRevertAskingForAudit(campaign::CampaignEngine& engine,
                                                                             campaign::AcceptOrRevertRequest& q,
                                                                             const campaign::CallContext& ctx,
                                                                             mcp::RequestContext* request) {
  auto outcome = engine.acceptOrRevert(q, ctx);
  if (request && outcome.refused() && outcome.refusal().code == campaign::RefusalCode::AuditRequired &&
      request->client().supportsElicitation() && askForAudit(outcome.refusal(), *request, q)) {
    outcome = engine.acceptOrRevert(q, ctx);
  }
  return outcome;
}

}  // namespace kopt::tools
