#include "tools/rebuild_kernel_tool.h"

#include "tools/step_tool_support.h"

namespace kopt::tools {

mcp::ToolSpec makeRebuildKernelTool(const CampaignToolDeps& deps) {
  return makeStepTool(
      deps, "rebuild_kernel", "Rebuild the kernel",
      "OPTIMIZE/VALIDATE (open round): runs the manifest's build_command on the working tree (nothing to do for "
      "Triton), output in rounds/round-N/artifacts/build.log (its tail is returned). A failed build is a result (ok: "
      "false), not an error: fix and call again; the round keeps its number. Benches and validation rebuild "
      "automatically when the files changed since the last build. Long: progress, cancellation, or async: true + "
      "poll_job.",
      &campaign::CampaignEngine::rebuildKernel);
}

}  // namespace kopt::tools
