#include "tools/poll_job_tool.h"

#include "tools/job_report.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makePollJobTool(const CampaignToolDeps& deps) {
  auto jobs = deps.jobs;
  mcp::ToolSpec t = ownTool<PollJobArgs, JobReport>(
      toolText("poll_job"), [jobs](const PollJobArgs& a, mcp::RequestContext& request) { return pollJob(*jobs, a, request); });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
