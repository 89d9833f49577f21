#include "tools/accept_or_revert_tool.h"

#include "tools/elicitation_questions.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeAcceptOrRevertTool(const CampaignToolDeps& deps) {
  using Request = campaign::AcceptOrRevertRequest;
  auto engine = deps.engine;
  mcp::ToolSpec t = askingLongTool<Request, campaign::AcceptOrRevertResult>(
      toolText("accept_or_revert"), deps.jobs,
      [engine](Request& q, const campaign::CallContext& ctx, mcp::RequestContext* request) {
        return acceptOrRevertAskingForAudit(*engine, q, ctx, request);
      });
  t.annotations = campaignWriteAnnotations();
  t.annotations.destructiveHint = true;  // it rewrites the kernel files in the working tree
  t.annotations.idempotentHint = false;
  return t;
}

}  // namespace kopt::tools
