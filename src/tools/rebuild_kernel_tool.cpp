#include "tools/rebuild_kernel_tool.h"

#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRebuildKernelTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "rebuild_kernel";
  t.title = "Rebuild the kernel";
  t.description =
      "OPTIMIZE/VALIDATE (open round): runs the manifest's build_command on the working tree (nothing to do for Triton), output in rounds/round-N/artifacts/build.log (its tail is returned). A failed build is a result (ok: false), not an error: fix and call again; the round keeps its number. Benches and validation rebuild automatically when the files changed since the last build. Long: progress, cancellation, or async: true + poll_job.";
  FlatSchema s;
  s.campaignDir().async();
  t.inputSchema = s.build();
  t.outputSchema = stepOutputSchema();
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = false;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = longHandler("rebuild_kernel", deps.jobs, [engine](const json& args, const campaign::CallContext& ctx) {
    return respond<campaign::StepResult>(engine->rebuildKernel({argString(args, "campaign_dir")}, ctx), stepResultJson,
                                         stepResultText);
  });
  return t;
}

}  // namespace kopt::tools
