#pragma once
// `parse_bench_csv`: reads a frozen-schema benchmark CSV and answers with the turbo helper's
// fields (rows, all_pass, aggregate, per-row metrics_stddev_pct) plus kopt's schema_check (against
// a frozen header) and shape_check (against an expected label list). Informational only: kopt
// never takes a decision from a CSV the agent points at; the campaign engine runs the benchmark
// itself and reads its own files.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mcp/tool_api.h"

namespace kopt::tools {

// What a campaign contributes when the call names one: its frozen header and expected shapes.
struct CampaignSchemaInfo {
  std::string frozenHeader;                 // exact header bytes frozen at BASELINE ("" before it)
  std::vector<std::string> expectedLabels;  // the shape set in order (empty before BASELINE)
  std::string primaryMetric;                // the manifest's primary metric ("" = the table's default)
  std::filesystem::path campaignDir;        // relative csv paths resolve here first (turbo's order)
};

struct ParseBenchCsvOptions {
  // Relative csv paths resolve against this (the server's workspace root). When set, the file must
  // lie inside it or inside the named campaign's directory.
  std::filesystem::path workspaceRoot;
  // Files larger than this are refused rather than read (a 100,000-row table is ~12 MB).
  std::uintmax_t maxFileBytes = 256u << 20;
  // Resolves the optional `campaign` argument; nullopt = no such campaign. May be empty (then the
  // argument is rejected with a clear error).
  std::function<std::optional<CampaignSchemaInfo>(const std::string& campaign)> findCampaign;
};

mcp::ToolSpec makeParseBenchCsvTool(ParseBenchCsvOptions options);

// The outputSchema the tool declares (exposed so tests can check results against it).
mcp::json parseBenchCsvOutputSchema();

}  // namespace kopt::tools
