#include "tools/accept_or_revert_tool.h"

#include "tools/elicitation_questions.h"
#include "tools/typed_tool_spec.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::AcceptOrRevertResult& r) {
  std::string text = "Round " + std::to_string(r.round) + ": " + r.status + ". ";
  if (r.status.rfind("ACCEPTED", 0) == 0) text += "Committed " + r.commit.substr(0, 12) + "; the current best moved there.";
  else text += "Restored the last accepted tree (" + r.commit.substr(0, 12) + ") for " + util::join(r.restoredFiles, ", ") + ".";
  text += " Records: " + r.summaryPath + ".";
  if (r.stagnationReviewRequired) text += " Two rollbacks in a row: termination_check with three new directions in >= 2 categories comes next.";
  return text;
}

}  // namespace

mcp::ToolSpec makeAcceptOrRevertTool(const CampaignToolDeps& deps) {
  using Request = campaign::AcceptOrRevertRequest;
  using Result = campaign::AcceptOrRevertResult;
  mcp::ToolSpec t = typedSpec<AsyncArgs<Request>, JobOr<Result>>(
      {"accept_or_revert", "Apply the round's verdict",
       "VALIDATE -> ANALYZE: kopt applies validate_round's verdict mechanically; you cannot choose. ACCEPT: commits "
       "exactly the declared files on the campaign branch ('[optimize] <op> <backend> round-N: ...'); the current "
       "best moves there. ROLLBACK: restores the last accepted tree for every kernel file (tracked and untracked). "
       "Either way kopt snapshots the kernel and writes summary.md, decision.json, the trend row and the optimize.md "
       "block from your prose: attribution and next_direction always; root_cause and lesson for a rollback; the "
       "real-training transfer check fields (rule 11). An AUDIT verdict needs a person: kopt asks through "
       "elicitation when your client supports it, else pass audit_confirmed_by (+ audit_note) or audit_rejected: "
       "true. Destructive: it rewrites the kernel files in the working tree."});
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = true;
  t.annotations.idempotentHint = false;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  // `request` is null in a background job: nobody can be asked there.
  auto body = [engine](const json& args, const campaign::CallContext& ctx, mcp::RequestContext* request) {
    Request q;
    if (auto problem = readArguments(args, q)) return argumentError(*problem);
    auto outcome = engine->acceptOrRevert(q, ctx);
    if (request && outcome.refused() && outcome.refusal().code == campaign::RefusalCode::AuditRequired &&
        request->client().supportsElicitation() && askForAudit(outcome.refusal(), *request, q)) {
      outcome = engine->acceptOrRevert(q, ctx);
    }
    return respond<Result>(outcome, resultJson<Result>, summaryText);
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
