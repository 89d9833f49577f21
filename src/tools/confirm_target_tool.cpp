#include "tools/confirm_target_tool.h"

#include "tools/elicitation_questions.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeConfirmTargetTool(const CampaignToolDeps& deps) {
  using Request = campaign::ConfirmTargetRequest;
  auto engine = deps.engine;
  mcp::ToolSpec t = ownTool<Request, campaign::ConfirmTargetResult>(
      toolText("confirm_target"), [engine](Request& q, mcp::RequestContext& request) {
        q.method = "argument";
        if (request.client().supportsElicitation()) {
          if (auto notAsked = askToConfirmTarget(*engine, request, q)) return *notAsked;
        }
        return typedResponse(engine->confirmTarget(q));
      });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
