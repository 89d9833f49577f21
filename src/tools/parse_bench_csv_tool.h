#pragma once
// `parse_bench_csv`: reads a frozen-schema benchmark CSV and answers with the turbo helper's
// fields (rows, all_pass, aggregate, per-row metrics_stddev_pct) plus kopt's schema_check (against
// a frozen header) and shape_check (against an expected label list). Informational only: kopt
// never takes a decision from a CSV the agent points at; the campaign engine runs the benchmark
// itself and reads its own files.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mcp/tool_api.h"

namespace kopt::tools {

// What a campaign contributes when the call names one: its frozen header and expected shapes.
struct CampaignSchemaInfo {
  std::string frozenHeader;                 // exact header bytes frozen at BASELINE
  std::vector<std::string> expectedLabels;  // the shape set in order
  std::string primaryMetric;                // the manifest's primary metric
};

struct ParseBenchCsvOptions {
  // Relative csv paths resolve against this (the server's workspace root).
  std::filesystem::path workspaceRoot;
  // Resolves the optional `campaign` argument; nullopt = no such campaign. May be empty (then the
  // argument is rejected with a clear error).
  std::function<std::optional<CampaignSchemaInfo>(const std::string& campaign)> findCampaign;
};

mcp::ToolSpec makeParseBenchCsvTool(ParseBenchCsvOptions options);

}  // namespace kopt::tools
