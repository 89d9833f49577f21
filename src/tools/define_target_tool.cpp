#include "tools/define_target_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::DefineTargetResult& r) {
  std::string text = std::string(r.redefined ? "Redefined" : "Defined") + " the target; nothing else changed.\n" +
                     r.summary + "\nAsk the user to confirm it: call confirm_target with campaign_dir \"" +
                     r.campaignDir + "\".";
  for (const auto& w : r.warnings) text += "\nWarning: " + w;
  return text;
}

}  // namespace

mcp::ToolSpec makeDefineTargetTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<campaign::DefineTargetRequest, campaign::DefineTargetResult>(
      {"define_target", "Define the optimization target",
       "DEFINE_TARGET: define a kernel-optimization campaign. Give the git repository holding the kernel (repo_path) "
       "and the manifest: a YAML file (manifest_path) or text (manifest_yaml), and/or individual fields, which "
       "override the YAML. Required manifest fields: target_op, target_backend, target_gpu, primary_metric, "
       "kernel_source, test_command, benchmark_command, quick_command. Writes a draft under "
       "<repo>/.kopt/campaigns/<name> (never committed) and changes nothing else; the user must then confirm it with "
       "confirm_target. Calling it again while unconfirmed replaces the draft. A manifest problem is refused with "
       "every field named."},
      [engine](const campaign::DefineTargetRequest& q) { return engine->defineTarget(q); }, summaryText);
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = false;
  t.annotations.idempotentHint = true;
  t.annotations.openWorldHint = false;
  return t;
}

}  // namespace kopt::tools
