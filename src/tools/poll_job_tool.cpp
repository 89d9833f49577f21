#include "tools/poll_job_tool.h"

#include "tools/tool_jobs.h"

namespace kopt::tools {

mcp::ToolSpec makePollJobTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "poll_job";
  t.title = "Poll a background job";
  t.description =
      "For calls started with async: true (run_baseline, rebuild_kernel, run_tests, run_quick_bench, validate_round, "
      "accept_or_revert, final_acceptance): waits up to wait_seconds (default 0, at most 600; progress notifications "
      "meanwhile) and returns the job's state and progress. When the state is finished, `result` holds the tool's own "
      "structured result (an isError result is returned as an error, with the tool's text). cancel: true stops it. "
      "Poll in windows of at most 15 minutes; two windows without progress mean a hang. After a server restart jobs "
      "are gone: campaign_status says where the campaign stands.";
  FlatSchema s;
  s.string("job_id", "The job id the async call returned", true)
      .integer("wait_seconds", "How long to wait for the job to end (0-600)", false, 0, 600)
      .boolean("cancel", "Cancel the job (its partial files are discarded; nothing is recorded)");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("job_id", true)
                       .string("tool")
                       .string("state", true)
                       .prop("progress", {{"type", "number"}})
                       .nullableNumber("total")
                       .string("message")
                       .prop("elapsed_s", {{"type", "number"}})
                       .prop("result", nullable("object"))
                       .string("text")
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto jobs = deps.jobs;
  t.handler = [jobs](const json& args, mcp::RequestContext& ctx) {
    return guarded("poll_job", [&] {
      const std::string id = argString(args, "job_id");
      if (argBool(args, "cancel")) jobs->cancel(id);
      const auto wait = std::chrono::seconds(argInt(args, "wait_seconds").value_or(0));
      auto status = jobs->poll(id, wait, [&](const JobStatus& s) { ctx.progress(s.progress, s.total, s.message); });
      if (!status) {
        return mcp::ToolResult::error("no job '" + id + "' (never started, or the server restarted since)", "job_id",
                                      "call campaign_status to see where the campaign stands");
      }
      if (status->state != JobState::Running && status->result && status->result->isError) {
        mcp::ToolResult r = *status->result;
        r.content.insert(r.content.begin(), mcp::textContent(status->tool + " (" + id + ") ended with an error:"));
        return r;
      }
      json j{{"job_id", id},
             {"tool", status->tool},
             {"state", toString(status->state)},
             {"progress", status->progress},
             {"total", status->total ? json(*status->total) : json(nullptr)},
             {"message", status->message},
             {"elapsed_s", status->elapsedSeconds},
             {"result", status->result && status->result->structuredContent ? *status->result->structuredContent : json(nullptr)}};
      std::string text;
      if (status->state == JobState::Running) {
        text = status->tool + " (" + id + ") is running: " + status->message;
      } else if (status->result && !status->result->content.empty() && status->result->content[0].contains("text")) {
        text = status->result->content[0]["text"].get<std::string>();
        j["text"] = text;
      }
      mcp::ToolResult r;
      r.content.push_back(mcp::textContent(text.empty() ? j.dump() : text));
      r.structuredContent = j;
      return r;
    });
  };
  return t;
}

}  // namespace kopt::tools
