#include "tools/accept_or_revert_tool.h"

#include "campaign/round_vocabulary.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

json resultJson(const campaign::AcceptOrRevertResult& r) {
  return json{{"round", r.round},
              {"status", r.status},
              {"commit", r.commit},
              {"restored_files", r.restoredFiles},
              {"summary_path", r.summaryPath},
              {"consecutive_rollbacks", r.consecutiveRollbacks},
              {"stagnation_review_required", r.stagnationReviewRequired},
              {"next", nextJson(r.next)},
              {"phase", campaign::toString(r.phase)}};
}

std::string resultText(const campaign::AcceptOrRevertResult& r) {
  std::string text = "Round " + std::to_string(r.round) + ": " + r.status + ". ";
  if (r.status.rfind("ACCEPTED", 0) == 0) text += "Committed " + r.commit.substr(0, 12) + "; the current best moved there.";
  else text += "Restored the last accepted tree (" + r.commit.substr(0, 12) + ") for " + util::join(r.restoredFiles, ", ") + ".";
  text += " Records: " + r.summaryPath + ".";
  if (r.stagnationReviewRequired) text += " Two rollbacks in a row: termination_check with three new directions in >= 2 categories comes next.";
  return text;
}

}  // namespace

mcp::ToolSpec makeAcceptOrRevertTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "accept_or_revert";
  t.title = "Apply the round's verdict";
  t.description =
      "VALIDATE -> ANALYZE: kopt applies validate_round's verdict mechanically; you cannot choose. ACCEPT: commits "
      "exactly the declared files on the campaign branch ('[optimize] <op> <backend> round-N: ...'); the current best "
      "moves there. ROLLBACK: restores the last accepted tree for every kernel file (tracked and untracked). Either "
      "way kopt snapshots the kernel and writes summary.md, decision.json, the trend row and the optimize.md block "
      "from your prose: attribution and next_direction always; root_cause and lesson for a rollback; the "
      "real-training transfer check fields (rule 11). An AUDIT verdict needs a person: kopt asks through elicitation "
      "when your client supports it, else pass audit_confirmed_by (+ audit_note) or audit_rejected: true. "
      "Destructive: it rewrites the kernel files in the working tree.";
  FlatSchema s;
  s.campaignDir()
      .string("description", "One line for the trend table and the commit subject (default: the hypothesis' change)")
      .string("attribution", "What caused the observed effect (or its absence)", true)
      .string("next_direction", "The direction of the next round", true)
      .string("key_finding", "One line for the trend table")
      .string("root_cause", "Rollback analysis: why it did not work (required for a rollback)")
      .string("lesson", "Rollback analysis: what to remember (required for a rollback)")
      .string("cache_key", "Transfer check: the cache key, or none")
      .string("id_audit", "Transfer check: the id()/address audit")
      .string("hit_rate_trace", "Transfer check: the 4-step hit-rate trace")
      .string("skew_robustness", "Transfer check: skewed / empty-group robustness")
      .string("estimated_real_gain", "Transfer check: the gain expected in a real training step")
      .enumeration("transfer_decision",
                   {campaign::toString(campaign::TransferDecision::AcceptAsReal),
                    campaign::toString(campaign::TransferDecision::AcceptWithAsterisk),
                    campaign::toString(campaign::TransferDecision::RejectAsOverfit)},
                   "Transfer check decision (default from the bucket)")
      .string("audit_confirmed_by", "AUDIT only, clients without elicitation: the person who audited the numbers")
      .string("audit_note", "AUDIT only: what the audit found")
      .boolean("audit_rejected", "AUDIT only: the person rejected the numbers (the round is rolled back)")
      .async();
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .integer("round")
                       .string("status")
                       .string("commit")
                       .strings("restored_files")
                       .string("summary_path")
                       .integer("consecutive_rollbacks")
                       .boolean("stagnation_review_required")
                       .prop("next", nextSchema())
                       .phase()
                       .jobFields()
                       .build();
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = true;
  t.annotations.idempotentHint = false;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  auto body = [engine](const json& args, const campaign::CallContext& ctx, mcp::RequestContext* request) {
    campaign::AcceptOrRevertRequest q;
    q.campaignDir = argString(args, "campaign_dir");
    q.description = argString(args, "description");
    q.attribution = argString(args, "attribution");
    q.nextDirection = argString(args, "next_direction");
    q.keyFinding = argString(args, "key_finding");
    q.rootCause = argString(args, "root_cause");
    q.lesson = argString(args, "lesson");
    q.cacheKey = argString(args, "cache_key");
    q.idAudit = argString(args, "id_audit");
    q.hitRateTrace = argString(args, "hit_rate_trace");
    q.skewRobustness = argString(args, "skew_robustness");
    q.estimatedRealGain = argString(args, "estimated_real_gain");
    q.transferDecision = argString(args, "transfer_decision");
    q.auditConfirmedBy = argString(args, "audit_confirmed_by");
    q.auditNote = argString(args, "audit_note");
    q.auditRejected = argBool(args, "audit_rejected");
    auto outcome = engine->acceptOrRevert(q, ctx);
    // An AUDIT verdict: ask the person directly when the client can.
    if (request && outcome.refused() && outcome.refusal().code == campaign::RefusalCode::AuditRequired &&
        request->client().supportsElicitation()) {
      std::string flags;
      for (const auto& d : outcome.refusal().details) flags += "\n- " + d;
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
      auto answer = request->requestClient("elicitation/create", params, std::chrono::minutes(30), &error);
      if (answer) {
        const json content = answer->value("content", json::object());
        if (answer->value("action", "") == "accept" && content.value("confirm", false)) {
          const std::string name = util::trim(content.value("name", ""));
          q.auditConfirmedBy = "elicitation:" + (name.empty() ? request->client().name : name);
          q.auditNote = content.value("note", "");
        } else {
          q.auditRejected = true;
        }
        outcome = engine->acceptOrRevert(q, ctx);
      }
    }
    return respond<campaign::AcceptOrRevertResult>(outcome, resultJson, resultText);
  };
  auto jobs = deps.jobs;
  t.handler = [body, jobs](const json& args, mcp::RequestContext& request) {
    if (argBool(args, "async") && jobs) {
      return longHandler("accept_or_revert", jobs,
                         [body](const json& a, const campaign::CallContext& c) { return body(a, c, nullptr); })(args, request);
    }
    const campaign::CallContext ctx = callContextFor(request);
    return guarded("accept_or_revert", [&] { return body(args, ctx, &request); });
  };
  return t;
}

}  // namespace kopt::tools
