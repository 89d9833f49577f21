#include "tools/job_report.h"

#include "tools/field_writer.h"

namespace kopt::tools {

void describe(FieldVisitor& v, JobReport& r) {
  v.field(out("job_id").required(), r.jobId);
  v.field(out("tool"), r.tool);
  v.field(out("state").required(), r.state);
  v.field(out("progress"), r.progress);
  v.field(out("total"), r.total);
  v.field(out("message"), r.message);
  v.field(out("elapsed_s"), r.elapsedSeconds);
  v.field(out("result"), r.result);
  v.field(out("text").omittedWhenEmpty(), r.text);
}

JobReport reportOf(const std::string& id, const JobStatus& status) {
  JobReport r;
  r.jobId = id;
  r.tool = status.tool;
  r.state = toString(status.state);
  r.progress = status.progress;
  r.total = status.total;
  r.message = status.message;
  r.elapsedSeconds = status.elapsedSeconds;
  if (status.result && status.result->structuredContent) r.result = *status.result->structuredContent;
  if (status.state != JobState::Running && status.result && !status.result->content.empty() &&
      status.result->content[0].contains("text")) {
    r.text = status.result->content[0]["text"].get<std::string>();
  }
  return r;
}

mcp::ToolResult pollJob(ToolJobs& jobs, const PollJobArgs& a, mcp::RequestContext& ctx) {
  if (a.cancel) jobs.cancel(a.jobId);
  auto status = jobs.poll(a.jobId, std::chrono::seconds(a.waitSeconds),
                          [&](const JobStatus& s) { ctx.progress(s.progress, s.total, s.message); });
  if (!status) {
    return mcp::ToolResult::error("no job '" + a.jobId + "' (never started, or the server restarted since)", "job_id",
                                  "call campaign_status to see where the campaign stands");
  }
  if (status->state != JobState::Running && status->result && status->result->isError) {
    mcp::ToolResult r = *status->result;
    r.content.insert(r.content.begin(), mcp::textContent(status->tool + " (" + a.jobId + ") ended with an error:"));
    return r;
  }
  const JobReport report = reportOf(a.jobId, *status);
  const nlohmann::json j = resultJson(report);
  const std::string text =
      status->state == JobState::Running ? status->tool + " (" + a.jobId + ") is running: " + status->message : report.text;
  mcp::ToolResult r;
  r.content.push_back(mcp::textContent(text.empty() ? j.dump() : text));
  r.structuredContent = j;
  return r;
}

}  // namespace kopt::tools
