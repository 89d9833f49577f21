#include "tools/job_report.h"

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

}  // namespace kopt::tools
