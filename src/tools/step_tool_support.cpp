#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeStepTool(const CampaignToolDeps& deps, const std::string& name, const std::string& title,
                           const std::string& description, StepRunner run) {
  mcp::ToolSpec t;
  t.name = name;
  t.title = title;
  t.description = description;
  FlatSchema s;
  s.campaignDir().async();
  t.inputSchema = s.build();
  t.outputSchema = stepOutputSchema();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = longHandler(name, deps.jobs, [engine, run](const json& args, const campaign::CallContext& ctx) {
    return respond<campaign::StepResult>(((*engine).*run)({argString(args, "campaign_dir")}, ctx), stepResultJson,
                                         stepResultText);
  });
  return t;
}

json stepResultJson(const campaign::StepResult& r) {
  return json{{"round", r.round},        {"step", r.step},         {"ok", r.ok},
              {"skipped", r.skipped},    {"outcome", r.outcome},   {"exit_code", r.exitCode},
              {"wall_ms", r.wallMs},     {"log_path", r.logPath},  {"log_tail", r.logTail},
              {"phase", campaign::toString(r.phase)}};
}

std::string stepResultText(const campaign::StepResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " " + r.step + ": " + (r.ok ? "ok" : "FAILED") + " (" +
                     r.outcome + ", " + std::to_string(r.wallMs) + " ms). Log: " + r.logPath;
  if (!r.logTail.empty()) text += "\n--- log tail ---\n" + r.logTail;
  return text;
}

json stepOutputSchema() {
  return OutputSchema()
      .integer("round")
      .string("step")
      .boolean("ok")
      .boolean("skipped")
      .string("outcome")
      .integer("exit_code")
      .integer("wall_ms")
      .string("log_path")
      .string("log_tail")
      .phase()
      .jobFields()
      .build();
}

}  // namespace kopt::tools
