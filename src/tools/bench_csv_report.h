#pragma once
// What parse_bench_csv answers, as plain structs (described once in tools/bench_csv_fields.cpp):
// the turbo helper's fields (rows, all_pass, aggregate, per-row metrics_stddev_pct) plus kopt's
// schema_check (against a frozen header) and shape_check (against an expected label list).
// Informational only: kopt never takes a decision from a CSV the agent points at.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "measure/bench_table.h"
#include "measure/frozen_schema.h"
#include "tools/field_reader.h"

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

// The arguments; left out, the header, shapes and metric come from the campaign, if one is named.
struct ParseBenchCsvRequest {
  std::string csvPath;
  std::optional<std::string> primaryMetric;  // comma-separated
  std::optional<std::string> frozenHeader;
  std::optional<std::vector<std::string>> expectedShapes;
  int maxRows = 1000;
  std::optional<std::string> campaign;
};

// A row's shape: its label and the dimensions the table has.
struct BenchShape {
  std::string label;
  std::optional<long long> B, M, N, K;
};

struct BenchCsvRow {
  std::string label;
  BenchShape shape;
  measure::Check check = measure::Check::Fail;
  std::map<std::string, double> metrics;  // NaN: an empty cell; +-inf kept (an SNR of inf is exact)
  std::map<std::string, double> metricsStddevPct;
  int repeats = 1;
  std::size_t line = 0;
  bool countsAsPass = true;
  std::string problem;  // "" when the row scores
};

// The header compared byte for byte with the frozen one, when there is one.
struct HeaderCheck {
  bool checked = false;
  std::optional<bool> ok;
  std::optional<std::string> source;  // "argument" | "campaign"
  std::vector<measure::HeaderDrift> drifts;
  std::string message;
};

// The labels compared with the expected shape set, when there is one.
struct ShapeCheck {
  bool checked = false;
  std::optional<bool> ok;
  std::optional<std::string> source;  // "argument" | "campaign"
  measure::ShapeSetCheck found;
  std::string message;
};

struct BenchCsvReport {
  std::string path;
  measure::SchemaKind schemaKind = measure::SchemaKind::Custom;
  std::vector<std::string> columns;
  std::vector<std::string> primaryMetric;
  bool allPass = true;
  std::vector<BenchCsvRow> rows;  // at most max_rows of them
  std::size_t rowsOmitted = 0;
  std::map<std::string, double> aggregate;  // per metric: geomean over the passing rows
  std::size_t passCount = 0;
  std::size_t rowCount = 0;
  HeaderCheck schemaCheck;
  ShapeCheck shapeCheck;
  std::string note;
};

// The report, or the argument at fault (no such campaign, no such file, a table that does not
// parse, a metric the table cannot score), with the fix.
Checked<BenchCsvReport> readBenchCsvReport(const ParseBenchCsvRequest& request, const ParseBenchCsvOptions& options);

}  // namespace kopt::tools
