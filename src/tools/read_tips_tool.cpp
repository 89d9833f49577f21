#include "tools/read_tips_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::ReadTipsResult& r) {
  if (!r.exists) return "No tips file yet at " + r.path + ". Next: run_baseline.";
  return std::to_string(r.count) + " tips from " + r.path + ":\n\n" + r.text + "\n\nNext: run_baseline.";
}

}  // namespace

mcp::ToolSpec makeReadTipsTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<PagedArgs, campaign::ReadTipsResult>(
      {"read_tips", "Read the historical tips",
       "READ_HISTORICAL_TIPS -> BASELINE: reads <tips_root>/<gpu>/<op>/<backend>/tips.md (what earlier campaigns "
       "learned about this op) and records that it was read. A missing file is fine. Long files are paged with "
       "offset/limit; later, query_tips reads them again (filtered by keyword)."},
      [engine](const PagedArgs& a) {
        return paged(engine->readTips(a.campaignDir), &campaign::ReadTipsResult::text, a, "tips file");
      },
      summaryText, PagedArgs::through("tips file"));
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
