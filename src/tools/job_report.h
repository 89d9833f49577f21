#pragma once
// What poll_job says of a background job (tools/tool_jobs.h), described once
// (tools/field_visitor.h) for its output schema and its structuredContent, and the poll itself.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/tool_api.h"
#include "tools/field_visitor.h"
#include "tools/request_fields.h"
#include "tools/tool_jobs.h"

namespace kopt::tools {

struct JobReport {
  std::string jobId, tool, state;
  double progress = 0;
  std::optional<double> total;
  std::string message;
  double elapsedSeconds = 0;
  std::optional<nlohmann::json> result;  // the tool's own structured result, once finished
  std::string text;                      // the tool's own text, once finished
};

void describe(FieldVisitor& v, JobReport& r);

JobReport reportOf(const std::string& id, const JobStatus& status);

// poll_job: cancels the job when asked, waits up to wait_seconds (its progress forwarded to the
// request) and reports it; a finished job's isError result comes back as that error.
mcp::ToolResult pollJob(ToolJobs& jobs, const PollJobArgs& a, mcp::RequestContext& ctx);

}  // namespace kopt::tools
