#include "tools/read_best_summary_tool.h"

namespace kopt::tools {

mcp::ToolSpec makeReadBestSummaryTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "read_best_summary";
  t.title = "Read the best round's summary";
  t.description =
      "Read-only: summary.md of the current best round (the baseline until a round is accepted). Same fields as the "
      "turbo helper's read_best_summary; the body is paged with offset/limit.";
  FlatSchema s;
  s.campaignDir();
  paging(s, "summary");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("campaign_dir", true)
                       .prop("round", nullable("integer"), true)
                       .string("source")
                       .string("body", true)
                       .string("note")
                       .build();
  t.annotations.readOnlyHint = true;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("read_best_summary", [&] {
      const std::size_t offset = static_cast<std::size_t>(argInt(args, "offset").value_or(0));
      const std::size_t limit = static_cast<std::size_t>(argInt(args, "limit").value_or(kTextLimit));
      return respond<campaign::BestSummaryResult>(
          engine->readBestSummary(argString(args, "campaign_dir")),
          [&](const campaign::BestSummaryResult& r) {
            json j{{"campaign_dir", r.campaignDir},
                   {"round", r.round ? json(*r.round) : json(nullptr)},
                   {"body", pageText(r.body, offset, limit, "summary.md")}};
            if (!r.source.empty()) j["source"] = r.source;
            if (!r.note.empty()) j["note"] = r.note;
            return j;
          },
          [&](const campaign::BestSummaryResult& r) {
            if (!r.round) return r.note;
            return "Best round " + std::to_string(*r.round) + " (" + r.source + "):\n\n" +
                   pageText(r.body, offset, limit, "summary.md");
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
