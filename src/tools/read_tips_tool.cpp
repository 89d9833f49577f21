#include "tools/read_tips_tool.h"

#include "campaign/engine_phase_table.h"

namespace kopt::tools {

mcp::ToolSpec makeReadTipsTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "read_tips";
  t.title = "Read the historical tips";
  t.description =
      "READ_HISTORICAL_TIPS -> BASELINE: reads <tips_root>/<gpu>/<op>/<backend>/tips.md (what earlier campaigns learned "
      "about this op) and records that it was read. A missing file is fine. Long files are paged with offset/limit; later, query_tips reads them again (filtered by keyword).";
  FlatSchema s;
  s.campaignDir();
  paging(s, "tips file");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("path", true)
                       .boolean("exists", true)
                       .integer("count")
                       .strings("headings")
                       .string("text")
                       .phase()
                       .string("next_tool")
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("read_tips", [&] {
      const std::size_t offset = static_cast<std::size_t>(argInt(args, "offset").value_or(0));
      const std::size_t limit = static_cast<std::size_t>(argInt(args, "limit").value_or(kTextLimit));
      return respond<campaign::ReadTipsResult>(
          engine->readTips(argString(args, "campaign_dir")),
          [&](const campaign::ReadTipsResult& r) {
            return json{{"path", r.path},
                        {"exists", r.exists},
                        {"count", r.count},
                        {"headings", r.headings},
                        {"text", pageText(r.text, offset, limit, "tips file")},
                        {"phase", campaign::toString(r.phase)},
                        {"next_tool", campaign::nextToolFor(r.phase)}};
          },
          [&](const campaign::ReadTipsResult& r) {
            if (!r.exists) return "No tips file yet at " + r.path + ". Next: run_baseline.";
            return std::to_string(r.count) + " tips from " + r.path + ":\n\n" + pageText(r.text, offset, limit, "tips file") +
                   "\n\nNext: run_baseline.";
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
