#include "tools/parse_bench_csv_tool.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>

#include "measure/bench_table.h"
#include "measure/frozen_schema.h"
#include "measure/scoring.h"
#include "tools/tool_texts.h"

namespace kopt::tools {

using mcp::json;
using mcp::ToolResult;
namespace fs = std::filesystem;
namespace m = kopt::measure;

namespace {

constexpr const char* kInformational =
    "informational only: kopt never takes a decision from a CSV the agent points at; validate_round runs the "
    "benchmark itself";

json nullable(const char* type) { return json{{"type", json::array({type, "null"})}}; }

json inputSchema() {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"csv_path"}},
      {"properties",
       {
           {"csv_path",
            {{"type", "string"},
             {"minLength", 1},
             {"description",
              "The benchmark CSV (frozen schema). Relative paths resolve against the campaign directory when "
              "`campaign` is given, else the workspace root."}}},
           {"primary_metric",
            {{"type", "string"},
             {"description",
              "Metric(s) to aggregate, comma-separated: 'Forward TFLOPS', 'Combined Step TFLOPS', 'Forward GB/s', "
              "'Backward GB/s' or any numeric column. Default: the campaign's, else the table's (GEMM with "
              "backward times: Combined Step TFLOPS)."}}},
           {"frozen_header",
            {{"type", "string"},
             {"description", "A header line to compare byte for byte (default: the campaign's frozen header)."}}},
           {"expected_shapes",
            {{"type", "array"},
             {"items", {{"type", "string"}}},
             {"description", "Shape labels in the expected order (default: the campaign's shape set)."}}},
           {"max_rows",
            {{"type", "integer"},
             {"minimum", 0},
             {"maximum", 1000000},
             {"default", 1000},
             {"description",
              "At most this many rows in `rows` (default 1000); all_pass, aggregate and the checks always cover "
              "every row, and rows_omitted says how many were left out."}}},
           {"campaign",
            {{"type", "string"},
             {"minLength", 1},
             {"description", "A campaign directory: supplies the frozen header, shape set and primary metric."}}},
       }},
  };
}

// JSON has no NaN or infinity: NaN (also an empty cell) is null, +-inf the strings "inf"/"-inf"
// (an SNR of inf means "exact", which null would hide).
json number(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> splitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    part = trim(part);
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

bool isInside(const fs::path& root, const fs::path& path) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(root, ec);
  if (ec) return false;
  fs::path p = fs::weakly_canonical(path, ec);
  if (ec) return false;
  auto [ri, pi] = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
  return ri == r.end();
}

json shapeJson(const m::BenchRow& row) {
  json shape = {{"label", row.label}};
  auto dim = [&shape](const char* name, const std::optional<std::int64_t>& v) {
    if (v) shape[name] = *v;
  };
  dim("B", row.shape.B);
  dim("M", row.shape.M);
  dim("N", row.shape.N);
  dim("K", row.shape.K);
  return shape;
}

}  // namespace

json parseBenchCsvOutputSchema() {
  const json metricValue = {{"type", json::array({"number", "string", "null"})}};
  const json row = {
      {"type", "object"},
      {"required", {"label", "shape", "check", "metrics", "metrics_stddev_pct", "repeats", "line", "counts_as_pass"}},
      {"properties",
       {{"label", {{"type", "string"}}},
        {"shape", {{"type", "object"}}},
        {"check", {{"type", "string"}, {"enum", {"PASS", "FAIL", "ERROR"}}}},
        {"metrics", {{"type", "object"}, {"additionalProperties", metricValue}}},
        {"metrics_stddev_pct", {{"type", "object"}, {"additionalProperties", {{"type", "number"}}}}},
        {"repeats", {{"type", "integer"}}},
        {"line", {{"type", "integer"}}},
        {"counts_as_pass", {{"type", "boolean"}}},
        {"problem", {{"type", "string"}}}}},
  };
  const json schemaCheck = {
      {"type", "object"},
      {"required", {"checked", "ok", "source", "drifts", "message"}},
      {"properties",
       {{"checked", {{"type", "boolean"}}},
        {"ok", nullable("boolean")},
        {"source", nullable("string")},
        {"drifts",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"kind", {{"type", "string"}}}, {"column", {{"type", "integer"}}}, {"message", {{"type", "string"}}}}}}}}},
        {"message", {{"type", "string"}}}}},
  };
  const json strings = {{"type", "array"}, {"items", {{"type", "string"}}}};
  const json shapeCheck = {
      {"type", "object"},
      {"required", {"checked", "ok", "missing", "extra", "duplicated", "reordered", "message"}},
      {"properties",
       {{"checked", {{"type", "boolean"}}},
        {"ok", nullable("boolean")},
        {"source", nullable("string")},
        {"missing", strings},
        {"extra", strings},
        {"duplicated", strings},
        {"reordered", {{"type", "boolean"}}},
        {"message", {{"type", "string"}}}}},
  };
  return {
      {"type", "object"},
      {"required",
       {"path", "schema_kind", "columns", "primary_metric", "all_pass", "rows", "rows_omitted", "aggregate", "pass_count",
        "row_count", "schema_check", "shape_check", "note"}},
      {"properties",
       {{"path", {{"type", "string"}}},
        {"schema_kind", {{"type", "string"}, {"enum", {"gemm", "memory_bound", "custom"}}}},
        {"columns", strings},
        {"primary_metric", strings},
        {"all_pass", {{"type", "boolean"}}},
        {"rows", {{"type", "array"}, {"items", row}}},
        {"rows_omitted", {{"type", "integer"}, {"minimum", 0}}},
        {"aggregate", {{"type", "object"}, {"additionalProperties", {{"type", "number"}}}}},
        {"pass_count", {{"type", "integer"}}},
        {"row_count", {{"type", "integer"}}},
        {"schema_check", schemaCheck},
        {"shape_check", shapeCheck},
        {"note", {{"type", "string"}}}}},
  };
}

mcp::ToolSpec makeParseBenchCsvTool(ParseBenchCsvOptions options) {
  mcp::ToolSpec tool;
  const ToolText text = toolText("parse_bench_csv");
  tool.name = text.name;
  tool.title = text.title;
  tool.description = text.description;
  tool.inputSchema = inputSchema();
  tool.outputSchema = parseBenchCsvOutputSchema();
  tool.annotations.readOnlyHint = true;
  tool.annotations.destructiveHint = false;
  tool.annotations.idempotentHint = true;
  tool.annotations.openWorldHint = false;
  tool.handler = [options](const json& args, mcp::RequestContext&) -> ToolResult {
    // --- arguments ---
    if (!args.contains("csv_path") || !args["csv_path"].is_string() || args["csv_path"].get<std::string>().empty())
      return ToolResult::error("is required and must be a non-empty string", "csv_path",
                               "pass the path of the benchmark CSV, e.g. rounds/round-2/artifacts/benchmark.csv");
    const std::string csvArg = args["csv_path"].get<std::string>();

    std::optional<CampaignSchemaInfo> campaign;
    if (args.contains("campaign")) {
      if (!args["campaign"].is_string()) return ToolResult::error("must be a string", "campaign", "pass the campaign directory");
      const std::string name = args["campaign"].get<std::string>();
      if (!options.findCampaign)
        return ToolResult::error("campaigns are not available in this server", "campaign",
                                 "pass frozen_header and expected_shapes instead");
      campaign = options.findCampaign(name);
      if (!campaign)
        return ToolResult::error("no campaign at '" + name + "'", "campaign",
                                 "pass the directory define_target created, or omit the argument");
    }

    std::optional<std::string> frozenHeader;
    std::string frozenSource;
    if (args.contains("frozen_header")) {
      if (!args["frozen_header"].is_string())
        return ToolResult::error("must be a string", "frozen_header", "pass the exact header line frozen at BASELINE");
      frozenHeader = args["frozen_header"].get<std::string>();
      frozenSource = "argument";
    } else if (campaign && !campaign->frozenHeader.empty()) {
      frozenHeader = campaign->frozenHeader;
      frozenSource = "campaign";
    }

    std::optional<std::vector<std::string>> expected;
    std::string expectedSource;
    if (args.contains("expected_shapes")) {
      const json& e = args["expected_shapes"];
      if (!e.is_array()) return ToolResult::error("must be an array of labels", "expected_shapes", "pass [\"label1\", ...]");
      std::vector<std::string> labels;
      for (std::size_t i = 0; i < e.size(); ++i) {
        if (!e[i].is_string())
          return ToolResult::error("item " + std::to_string(i) + " is not a string", "expected_shapes",
                                   "pass the labels as strings");
        labels.push_back(e[i].get<std::string>());
      }
      expected = std::move(labels);
      expectedSource = "argument";
    } else if (campaign && !campaign->expectedLabels.empty()) {
      expected = campaign->expectedLabels;
      expectedSource = "campaign";
    }

    std::string metricArg;
    if (args.contains("primary_metric")) {
      if (!args["primary_metric"].is_string())
        return ToolResult::error("must be a string", "primary_metric", "e.g. \"Forward TFLOPS\" or \"Combined Step TFLOPS\"");
      metricArg = args["primary_metric"].get<std::string>();
    } else if (campaign) {
      metricArg = campaign->primaryMetric;
    }

    std::size_t maxRows = 1000;
    if (args.contains("max_rows")) {
      const json& m = args["max_rows"];
      if (!m.is_number_integer() || m.get<long long>() < 0)
        return ToolResult::error("must be a non-negative integer", "max_rows", "e.g. 1000; 0 returns no rows, only the summary");
      maxRows = static_cast<std::size_t>(m.get<long long>());
    }

    // --- the file ---
    fs::path path(csvArg);
    if (path.is_relative()) {
      fs::path base = campaign && !campaign->campaignDir.empty() ? campaign->campaignDir : options.workspaceRoot;
      std::error_code ec;
      if (campaign && !campaign->campaignDir.empty() && !fs::exists(base / path, ec) && !options.workspaceRoot.empty())
        base = options.workspaceRoot;
      path = base.empty() ? path : base / path;
    }
    if (!options.workspaceRoot.empty() && !isInside(options.workspaceRoot, path) &&
        !(campaign && !campaign->campaignDir.empty() && isInside(campaign->campaignDir, path)))
      return ToolResult::error("'" + csvArg + "' is outside the workspace " + options.workspaceRoot.string(), "csv_path",
                               "pass a CSV inside the workspace or the campaign directory");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      return ToolResult::error("no such file: " + path.string(), "csv_path", "check the path; relative paths resolve against " +
                                   (campaign && !campaign->campaignDir.empty() ? std::string("the campaign directory")
                                                                               : std::string("the workspace root")));
    const auto size = fs::file_size(path, ec);
    if (ec || size > options.maxFileBytes)
      return ToolResult::error("the file is larger than " + std::to_string(options.maxFileBytes) + " bytes", "csv_path",
                               "a benchmark table has one row per shape; check that this is the right file");
    std::string text;
    {
      std::ifstream in(path, std::ios::binary);
      if (!in) return ToolResult::error("cannot read " + path.string(), "csv_path", "check the file's permissions");
      text.resize(static_cast<std::size_t>(size));
      in.read(text.data(), static_cast<std::streamsize>(size));
      text.resize(static_cast<std::size_t>(in.gcount()));
    }

    // --- parse ---
    m::TableResult parsed = m::parseBenchCsv(text);
    if (auto* e = std::get_if<m::TableError>(&parsed))
      return ToolResult::error(path.string() + ": " + e->message, "csv_path", e->fix);
    const m::BenchTable& table = std::get<m::BenchTable>(parsed);

    std::vector<m::PrimaryMetric> metrics;
    if (metricArg.empty()) {
      metrics.push_back(m::defaultPrimaryMetric(table));
    } else {
      for (const auto& name : splitComma(metricArg)) {
        auto metric = m::PrimaryMetric::parse(name, &table.schema);
        if (!metric)
          return ToolResult::error("'" + name + "' is neither a known metric nor a numeric column of this table",
                                   "primary_metric",
                                   "use Forward TFLOPS, Combined Step TFLOPS, Forward GB/s, Backward GB/s or a column name");
        metrics.push_back(*metric);
      }
      if (metrics.empty())
        return ToolResult::error("names no metric", "primary_metric", "e.g. \"Forward TFLOPS\"");
    }
    std::vector<m::ScoreVector> scores;
    for (const auto& metric : metrics) {
      auto scored = m::scoreTable(table, metric);
      if (auto* e = std::get_if<m::ScoreError>(&scored)) return ToolResult::error(e->message, "primary_metric", e->fix);
      scores.push_back(std::get<m::ScoreVector>(std::move(scored)));
    }

    // --- result ---
    json out;
    out["path"] = path.string();
    out["schema_kind"] = m::toString(table.schema.kind);
    out["columns"] = table.schema.columns;
    json metricNames = json::array();
    for (const auto& metric : metrics) metricNames.push_back(metric.name());
    out["primary_metric"] = metricNames;

    // Numeric columns that describe a result (not the shape, not a stddev companion).
    std::vector<std::size_t> metricCols, stddevFor;
    const auto& cols = table.schema.columns;
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string& name = cols[c];
      const bool text = c < table.schema.isText.size() && table.schema.isText[c];
      if (text || name == "B" || name == "M" || name == "N" || name == "K") continue;
      auto endsWith = [&name](const char* suffix) {
        const std::size_t n = std::char_traits<char>::length(suffix);
        return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
      };
      if (endsWith("_stddev") || endsWith("_stddev_pct") || endsWith("_std") || endsWith("_std_pct")) continue;
      metricCols.push_back(c);
    }
    const std::optional<std::size_t> repeatsCol = table.schema.indexOf("repeats");

    json rows = json::array();
    std::size_t passCount = 0;
    bool allPass = true;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
      bool rowPasses = true;
      for (const auto& sv : scores) rowPasses = rowPasses && sv.shapes[r].countsAsPass();
      if (rowPasses) ++passCount;
      else allPass = false;
    }
    for (std::size_t r = 0; r < table.rows.size() && r < maxRows; ++r) {
      const m::BenchRow& row = table.rows[r];
      json metricsJson = json::object();
      json stddevJson = json::object();
      for (std::size_t c : metricCols) {
        metricsJson[cols[c]] = number(row.values[c]);
        if (auto pct = table.stddevPercent(row, cols[c])) stddevJson[cols[c]] = *pct;
      }
      bool countsAsPass = true;
      std::string problem;
      for (const auto& sv : scores) {
        const m::ShapeScore& s = sv.shapes[r];
        if (sv.metric.kind == m::PrimaryMetricKind::CombinedStepTflops) metricsJson[sv.metric.name()] = number(s.value);
        if (!s.countsAsPass()) countsAsPass = false;
        if (problem.empty()) problem = s.problem;
      }
      int repeats = 1;
      if (repeatsCol && std::isfinite(row.values[*repeatsCol]) && row.values[*repeatsCol] >= 1)
        repeats = static_cast<int>(row.values[*repeatsCol]);
      json rowJson = {{"label", row.label},
                      {"shape", shapeJson(row)},
                      {"check", m::toString(row.check)},
                      {"metrics", std::move(metricsJson)},
                      {"metrics_stddev_pct", std::move(stddevJson)},
                      {"repeats", repeats},
                      {"line", row.line},
                      {"counts_as_pass", countsAsPass}};
      if (!problem.empty()) rowJson["problem"] = problem;
      rows.push_back(std::move(rowJson));
    }
    out["rows"] = std::move(rows);
    out["rows_omitted"] = table.rows.size() > maxRows ? table.rows.size() - maxRows : 0;
    out["all_pass"] = allPass;
    json aggregate = json::object();
    for (const auto& sv : scores) aggregate[sv.metric.name()] = sv.geomeanPass;
    out["aggregate"] = std::move(aggregate);
    out["pass_count"] = passCount;
    out["row_count"] = table.rows.size();

    json schemaCheck = {{"checked", false}, {"ok", nullptr}, {"source", nullptr}, {"drifts", json::array()}, {"message", ""}};
    if (frozenHeader) {
      auto drifts = m::compareFrozenHeader(*frozenHeader, table.schema.headerBytes);
      schemaCheck["checked"] = true;
      schemaCheck["ok"] = drifts.empty();
      schemaCheck["source"] = frozenSource;
      static const char* kinds[] = {"bom", "line_ending", "trailing_delimiter", "column_count", "column_renamed",
                                    "columns_reordered"};
      for (const auto& d : drifts)
        schemaCheck["drifts"].push_back(
            {{"kind", kinds[static_cast<int>(d.kind)]}, {"column", d.column}, {"message", d.message}});
      schemaCheck["message"] = drifts.empty() ? "the header matches the frozen header byte for byte" : m::describe(drifts);
    } else {
      schemaCheck["message"] = "no frozen header to compare (pass frozen_header or a campaign past BASELINE)";
    }
    out["schema_check"] = std::move(schemaCheck);

    json shapeCheck = {{"checked", false}, {"ok", nullptr}, {"source", nullptr}, {"missing", json::array()},
                       {"extra", json::array()}, {"duplicated", json::array()}, {"reordered", false}, {"message", ""}};
    if (expected) {
      m::ShapeSetCheck check = m::compareShapeSet(*expected, table.labels());
      shapeCheck["checked"] = true;
      shapeCheck["ok"] = check.ok();
      shapeCheck["source"] = expectedSource;
      shapeCheck["missing"] = check.missing;
      shapeCheck["extra"] = check.extra;
      shapeCheck["duplicated"] = check.duplicated;
      shapeCheck["reordered"] = check.reordered;
      shapeCheck["message"] = check.ok() ? "the shape set matches, in order" : check.describe();
    } else {
      shapeCheck["message"] = "no expected shapes to compare (pass expected_shapes or a campaign past BASELINE)";
    }
    out["shape_check"] = std::move(shapeCheck);
    out["note"] = kInformational;
    return ToolResult::structured(std::move(out));
  };
  return tool;
}

}  // namespace kopt::tools
