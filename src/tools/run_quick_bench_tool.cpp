#include "tools/run_quick_bench_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeRunQuickBenchTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = longTool<campaign::BenchRequest, campaign::BenchResult>(
      toolText("run_quick_bench"), deps.jobs,
      [engine](const campaign::BenchRequest& a, const campaign::CallContext& ctx) {
        return engine->runQuickBench(a, ctx);
      });
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
