#include "tools/bench_csv_report.h"

#include <cmath>

#include "measure/scoring.h"
#include "tools/bench_csv_file.h"
#include "util/text.h"

namespace kopt::tools {

namespace m = kopt::measure;

namespace {

constexpr const char* kInformational =
    "informational only: kopt never takes a decision from a CSV the agent points at; validate_round runs the "
    "benchmark itself";

// What the call compares the table with: the arguments, else the campaign's.
struct Expectations {
  std::optional<CampaignSchemaInfo> campaign;
  std::optional<std::string> frozenHeader, frozenSource;
  std::optional<std::vector<std::string>> shapes;
  std::optional<std::string> shapesSource;
  std::string metrics;  // comma-separated; "" = the table's default
};

Checked<Expectations> expectationsOf(const ParseBenchCsvRequest& q, const ParseBenchCsvOptions& options) {
  Expectations e;
  if (q.campaign) {
    if (!options.findCampaign)
      return ArgumentProblem{"campaign", "campaigns are not available in this server",
                             "pass frozen_header and expected_shapes instead"};
    e.campaign = options.findCampaign(*q.campaign);
    if (!e.campaign)
      return ArgumentProblem{"campaign", "no campaign at '" + *q.campaign + "'",
                             "pass the directory define_target created, or omit the argument"};
  }
  if (q.frozenHeader) {
    e.frozenHeader = q.frozenHeader;
    e.frozenSource = "argument";
  } else if (e.campaign && !e.campaign->frozenHeader.empty()) {
    e.frozenHeader = e.campaign->frozenHeader;
    e.frozenSource = "campaign";
  }
  if (q.expectedShapes) {
    e.shapes = q.expectedShapes;
    e.shapesSource = "argument";
  } else if (e.campaign && !e.campaign->expectedLabels.empty()) {
    e.shapes = e.campaign->expectedLabels;
    e.shapesSource = "campaign";
  }
  if (q.primaryMetric) e.metrics = *q.primaryMetric;
  else if (e.campaign) e.metrics = e.campaign->primaryMetric;
  return e;
}

ArgumentProblem metricProblem(std::string message, std::string fix) {
  return ArgumentProblem{"primary_metric", std::move(message), std::move(fix)};
}

// Each metric the call names, scored over the whole table.
Checked<std::vector<m::ScoreVector>> scoresOf(const m::BenchTable& table, const std::string& names) {
  std::vector<m::PrimaryMetric> metrics;
  if (names.empty()) metrics.push_back(m::defaultPrimaryMetric(table));
  for (const auto& part : util::split(names, ',')) {
    const std::string name = util::trim(part);
    if (name.empty()) continue;
    auto metric = m::PrimaryMetric::parse(name, &table.schema);
    if (!metric)
      return metricProblem("'" + name + "' is neither a known metric nor a numeric column of this table",
                           "use Forward TFLOPS, Combined Step TFLOPS, Forward GB/s, Backward GB/s or a column name");
    metrics.push_back(*metric);
  }
  if (metrics.empty()) return metricProblem("names no metric", "e.g. \"Forward TFLOPS\"");
  std::vector<m::ScoreVector> scores;
  for (const auto& metric : metrics) {
    auto scored = m::scoreTable(table, metric);
    if (auto* e = std::get_if<m::ScoreError>(&scored)) return metricProblem(e->message, e->fix);
    scores.push_back(std::get<m::ScoreVector>(std::move(scored)));
  }
  return scores;
}

bool endsWith(const std::string& name, const char* suffix) {
  const std::size_t n = std::char_traits<char>::length(suffix);
  return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
}

// Numeric columns that describe a result (not the shape, not a stddev companion).
std::vector<std::size_t> metricColumns(const m::Schema& schema) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    const std::string& name = schema.columns[c];
    const bool text = c < schema.isText.size() && schema.isText[c];
    if (text || name == "B" || name == "M" || name == "N" || name == "K") continue;
    if (endsWith(name, "_stddev") || endsWith(name, "_stddev_pct") || endsWith(name, "_std") ||
        endsWith(name, "_std_pct"))
      continue;
    out.push_back(c);
  }
  return out;
}

BenchCsvRow rowOf(const m::BenchTable& table, std::size_t r, const std::vector<std::size_t>& metricCols,
                  const std::vector<m::ScoreVector>& scores) {
  const m::BenchRow& row = table.rows[r];
  BenchCsvRow out;
  out.label = row.label;
  out.shape = BenchShape{row.label, row.shape.B, row.shape.M, row.shape.N, row.shape.K};
  out.check = row.check;
  out.line = row.line;
  for (std::size_t c : metricCols) {
    const std::string& column = table.schema.columns[c];
    out.metrics[column] = row.values[c];
    if (auto pct = table.stddevPercent(row, column)) out.metricsStddevPct[column] = *pct;
  }
  for (const auto& sv : scores) {
    const m::ShapeScore& s = sv.shapes[r];
    if (sv.metric.kind == m::PrimaryMetricKind::CombinedStepTflops) out.metrics[sv.metric.name()] = s.value;
    if (!s.countsAsPass()) out.countsAsPass = false;
    if (out.problem.empty()) out.problem = s.problem;
  }
  const std::optional<std::size_t> repeatsCol = table.schema.indexOf("repeats");
  if (repeatsCol && std::isfinite(row.values[*repeatsCol]) && row.values[*repeatsCol] >= 1)
    out.repeats = static_cast<int>(row.values[*repeatsCol]);
  return out;
}

HeaderCheck headerCheckOf(const m::BenchTable& table, const Expectations& e) {
  HeaderCheck check;
  if (!e.frozenHeader) {
    check.message = "no frozen header to compare (pass frozen_header or a campaign past BASELINE)";
    return check;
  }
  check.drifts = m::compareFrozenHeader(*e.frozenHeader, table.schema.headerBytes);
  check.checked = true;
  check.ok = check.drifts.empty();
  check.source = e.frozenSource;
  check.message =
      check.drifts.empty() ? "the header matches the frozen header byte for byte" : m::describe(check.drifts);
  return check;
}

ShapeCheck shapeCheckOf(const m::BenchTable& table, const Expectations& e) {
  ShapeCheck check;
  if (!e.shapes) {
    check.message = "no expected shapes to compare (pass expected_shapes or a campaign past BASELINE)";
    return check;
  }
  check.found = m::compareShapeSet(*e.shapes, table.labels());
  check.checked = true;
  check.ok = check.found.ok();
  check.source = e.shapesSource;
  check.message = check.found.ok() ? "the shape set matches, in order" : check.found.describe();
  return check;
}

BenchCsvReport reportOf(const std::string& path, const m::BenchTable& table, const std::vector<m::ScoreVector>& scores,
                        const Expectations& e, std::size_t maxRows) {
  BenchCsvReport out;
  out.path = path;
  out.schemaKind = table.schema.kind;
  out.columns = table.schema.columns;
  for (const auto& sv : scores) out.primaryMetric.push_back(sv.metric.name());
  // all_pass, pass_count and aggregate cover every row; `rows` stops at max_rows.
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    bool rowPasses = true;
    for (const auto& sv : scores) rowPasses = rowPasses && sv.shapes[r].countsAsPass();
    if (rowPasses) ++out.passCount;
    else out.allPass = false;
  }
  const std::vector<std::size_t> metricCols = metricColumns(table.schema);
  for (std::size_t r = 0; r < table.rows.size() && r < maxRows; ++r) out.rows.push_back(rowOf(table, r, metricCols, scores));
  out.rowsOmitted = table.rows.size() > maxRows ? table.rows.size() - maxRows : 0;
  for (const auto& sv : scores) out.aggregate[sv.metric.name()] = sv.geomeanPass;
  out.rowCount = table.rows.size();
  out.schemaCheck = headerCheckOf(table, e);
  out.shapeCheck = shapeCheckOf(table, e);
  out.note = kInformational;
  return out;
}

}  // namespace

Checked<BenchCsvReport> readBenchCsvReport(const ParseBenchCsvRequest& request, const ParseBenchCsvOptions& options) {
  Checked<Expectations> expected = expectationsOf(request, options);
  if (auto* problem = std::get_if<ArgumentProblem>(&expected)) return *problem;
  const Expectations& e = std::get<Expectations>(expected);

  BenchCsvPlace place{options.workspaceRoot, e.campaign ? e.campaign->campaignDir : "", options.maxFileBytes};
  Checked<BenchCsvFile> file = readBenchCsvFile(request.csvPath, place);
  if (auto* problem = std::get_if<ArgumentProblem>(&file)) return *problem;
  const std::string path = std::get<BenchCsvFile>(file).path.string();

  m::TableResult parsed = m::parseBenchCsv(std::get<BenchCsvFile>(file).text);
  if (auto* error = std::get_if<m::TableError>(&parsed))
    return ArgumentProblem{"csv_path", path + ": " + error->message, error->fix};
  const m::BenchTable& table = std::get<m::BenchTable>(parsed);

  Checked<std::vector<m::ScoreVector>> scores = scoresOf(table, e.metrics);
  if (auto* problem = std::get_if<ArgumentProblem>(&scores)) return *problem;
  return reportOf(path, table, std::get<std::vector<m::ScoreVector>>(scores), e,
                  static_cast<std::size_t>(request.maxRows));
}

}  // namespace kopt::tools
