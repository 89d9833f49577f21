#pragma once
// The questions kopt asks the person directly, through MCP elicitation, when the client can
// (docs on the confirm_target and accept_or_revert tools): who confirms a target, whether an
// AUDIT verdict's numbers are real. Each fills the request from the answer.
#include <optional>

#include "tools/tool_support.h"

namespace kopt::tools {

// Asks the user to confirm the defined target; fills q's method, confirm and confirmedBy.
// An error result when the question could not be asked (nothing is confirmed then).
std::optional<mcp::ToolResult> askToConfirmTarget(campaign::CampaignEngine& engine, mcp::RequestContext& ctx,
                                                  campaign::ConfirmTargetRequest& q);

// Asks whether the flagged numbers of an AUDIT refusal were audited and are real; fills q's
// audit fields. False when the question could not be asked.
bool askForAudit(const campaign::Refusal& refusal, mcp::RequestContext& request, campaign::AcceptOrRevertRequest& q);

// accept_or_revert; when it is refused for an AUDIT verdict and the person can be asked (a
// `request` whose client supports elicitation; nullptr in a background job), again with their answer.
campaign::Outcome<campaign::AcceptOrRevertResult> acceptOrRevertAskingForAudit(campaign::CampaignEngine& engine,
                                                                             campaign::AcceptOrRevertRequest& q,
                                                                             const campaign::CallContext& ctx,
                                                                             mcp::RequestContext* request);

}  // namespace kopt::tools
