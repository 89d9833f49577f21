#include "tools/poll_job_tool.h"

#include "tools/job_report.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makePollJobTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t = typedSpec<PollJobArgs, JobReport>(
      {"poll_job", "Poll a background job",
       "For calls started with async: true (run_baseline, rebuild_kernel, run_tests, run_quick_bench, validate_round, "
       "accept_or_revert, final_acceptance): waits up to wait_seconds (default 0, at most 600; progress "
       "notifications meanwhile) and returns the job's state and progress. When the state is finished, `result` "
       "holds the tool's own structured result (an isError result is returned as an error, with the tool's text). "
       "cancel: true stops it. Poll in windows of at most 15 minutes; two windows without progress mean a hang. "
       "After a server restart jobs are gone: campaign_status says where the campaign stands."});
  t.annotations = campaignWriteAnnotations();
  auto jobs = deps.jobs;
  t.handler = [jobs](const json& args, mcp::RequestContext& ctx) {
    return guarded("poll_job", [&] {
      PollJobArgs a;
      if (auto problem = readArguments(args, a)) return argumentError(*problem);
      if (a.cancel) jobs->cancel(a.jobId);
      auto status = jobs->poll(a.jobId, std::chrono::seconds(a.waitSeconds),
                               [&](const JobStatus& s) { ctx.progress(s.progress, s.total, s.message); });
      if (!status) {
        return mcp::ToolResult::error("no job '" + a.jobId + "' (never started, or the server restarted since)",
                                      "job_id", "call campaign_status to see where the campaign stands");
      }
      if (status->state != JobState::Running && status->result && status->result->isError) {
        mcp::ToolResult r = *status->result;
        r.content.insert(r.content.begin(), mcp::textContent(status->tool + " (" + a.jobId + ") ended with an error:"));
        return r;
      }
      const JobReport report = reportOf(a.jobId, *status);
      const json j = resultJson(report);
      const std::string text = status->state == JobState::Running
                                   ? status->tool + " (" + a.jobId + ") is running: " + status->message
                                   : report.text;
      mcp::ToolResult r;
      r.content.push_back(mcp::textContent(text.empty() ? j.dump() : text));
      r.structuredContent = j;
      return r;
    });
  };
  return t;
}

}  // namespace kopt::tools
