#include "tools/parse_bench_csv_tool.h"

#include "tools/bench_csv_fields.h"
#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeParseBenchCsvTool(ParseBenchCsvOptions options) {
  mcp::ToolSpec t = checkedTool<ParseBenchCsvRequest, BenchCsvReport>(
      toolText("parse_bench_csv"), [options](const ParseBenchCsvRequest& q, mcp::RequestContext&) {
        return readBenchCsvReport(q, options);
      });
  t.annotations = inspectionAnnotations(/*readOnly=*/true);
  return t;
}

}  // namespace kopt::tools
