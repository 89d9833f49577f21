#pragma once
// `parse_bench_csv`: reads a frozen-schema benchmark CSV and answers with the turbo helper's
// fields plus kopt's schema and shape checks (tools/bench_csv_report.h). Informational only: kopt
// never takes a decision from a CSV the agent points at; the campaign engine runs the benchmark
// itself and reads its own files.
#include "mcp/tool_api.h"
#include "tools/bench_csv_report.h"

namespace kopt::tools {

mcp::ToolSpec makeParseBenchCsvTool(ParseBenchCsvOptions options);

}  // namespace kopt::tools
