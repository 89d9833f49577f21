#include "tools/bench_csv_fields.h"

namespace kopt::tools {

namespace m = kopt::measure;

namespace {

// `checked`, `ok` and `source`, which both checks start with.
void describeCheckOutcome(FieldVisitor& v, bool& checked, std::optional<bool>& ok, std::optional<std::string>& source,
                          bool sourceRequired) {
  v.field(out("checked").required(), checked);
  v.field(out("ok").required(), ok);
  Field sourceField = out("source");
  if (sourceRequired) sourceField.required();
  v.field(sourceField, source);
}

// A count the result carries as std::size_t, written as an integer.
void describeCount(FieldVisitor& v, const Field& f, std::size_t& count) {
  long long n = static_cast<long long>(count);
  v.field(f, n);
  count = static_cast<std::size_t>(n);
}

}  // namespace

void describe(FieldVisitor& v, ParseBenchCsvRequest& q) {
  v.field(arg("csv_path",
              "The benchmark CSV (frozen schema). Relative paths resolve against the campaign directory when "
              "`campaign` is given, else the workspace root.")
              .required()
              .nonEmpty(),
          q.csvPath);
  v.field(arg("primary_metric",
              "Metric(s) to aggregate, comma-separated: 'Forward TFLOPS', 'Combined Step TFLOPS', 'Forward GB/s', "
              "'Backward GB/s' or any numeric column. Default: the campaign's, else the table's (GEMM with "
              "backward times: Combined Step TFLOPS)."),
          q.primaryMetric);
  v.field(arg("frozen_header", "A header line to compare byte for byte (default: the campaign's frozen header)."),
          q.frozenHeader);
  v.field(arg("expected_shapes", "Shape labels in the expected order (default: the campaign's shape set)."),
          q.expectedShapes);
  v.field(arg("max_rows",
              "At most this many rows in `rows` (default 1000); all_pass, aggregate and the checks always cover "
              "every row, and rows_omitted says how many were left out.")
              .range(0, 1000000)
              .defaultShown(),
          q.maxRows);
  v.field(arg("campaign", "A campaign directory: supplies the frozen header, shape set and primary metric.").nonEmpty(),
          q.campaign);
}

void describe(FieldVisitor& v, BenchShape& s) {
  v.field(out("label").required(), s.label);
  // A dimension the table does not have is left out (the turbo helper's shape dict).
  v.field(out("B").omittedWhenEmpty(), s.B);
  v.field(out("M").omittedWhenEmpty(), s.M);
  v.field(out("N").omittedWhenEmpty(), s.N);
  v.field(out("K").omittedWhenEmpty(), s.K);
}

void describe(FieldVisitor& v, BenchCsvRow& r) {
  static const NameTable<m::Check> checks =
      spelledBy(std::vector<m::Check>{m::Check::Pass, m::Check::Fail, m::Check::Error},
                [](m::Check c) { return std::string(m::toString(c)); });
  v.field(out("label").required(), r.label);
  object(v, out("shape").required(), r.shape);
  choice(v, out("check").required(), r.check, checks);
  v.field(out("metrics").required().infinitySpelled(), r.metrics);
  v.field(out("metrics_stddev_pct").required().numberValues(), r.metricsStddevPct);
  v.field(out("repeats").required(), r.repeats);
  describeCount(v, out("line").required(), r.line);
  v.field(out("counts_as_pass").required(), r.countsAsPass);
  v.field(out("problem").omittedWhenEmpty(), r.problem);
}

void describe(FieldVisitor& v, m::HeaderDrift& d) {
  using K = m::HeaderDriftKind;
  static const NameTable<K> kinds{{"bom", K::Bom},
                                  {"line_ending", K::LineEnding},
                                  {"trailing_delimiter", K::TrailingDelimiter},
                                  {"column_count", K::ColumnCount},
                                  {"column_renamed", K::ColumnRenamed},
                                  {"columns_reordered", K::ColumnsReordered}};
  choice(v, out("kind"), d.kind, kinds);
  describeCount(v, out("column"), d.column);
  v.field(out("message"), d.message);
}

void describe(FieldVisitor& v, HeaderCheck& c) {
  describeCheckOutcome(v, c.checked, c.ok, c.source, /*sourceRequired=*/true);
  objects(v, out("drifts").required(), c.drifts);
  v.field(out("message").required(), c.message);
}

void describe(FieldVisitor& v, ShapeCheck& c) {
  describeCheckOutcome(v, c.checked, c.ok, c.source, /*sourceRequired=*/false);
  v.field(out("missing").required(), c.found.missing);
  v.field(out("extra").required(), c.found.extra);
  v.field(out("duplicated").required(), c.found.duplicated);
  v.field(out("reordered").required(), c.found.reordered);
  v.field(out("message").required(), c.message);
}

void describe(FieldVisitor& v, BenchCsvReport& r) {
  static const NameTable<m::SchemaKind> kinds =
      spelledBy(std::vector<m::SchemaKind>{m::SchemaKind::Gemm, m::SchemaKind::MemoryBound, m::SchemaKind::Custom},
                [](m::SchemaKind k) { return std::string(m::toString(k)); });
  v.field(out("path").required(), r.path);
  choice(v, out("schema_kind").required(), r.schemaKind, kinds);
  v.field(out("columns").required(), r.columns);
  v.field(out("primary_metric").required(), r.primaryMetric);
  v.field(out("all_pass").required(), r.allPass);
  objects(v, out("rows").required(), r.rows);
  describeCount(v, out("rows_omitted").required().atLeast(0), r.rowsOmitted);
  v.field(out("aggregate").required().numberValues(), r.aggregate);
  describeCount(v, out("pass_count").required(), r.passCount);
  describeCount(v, out("row_count").required(), r.rowCount);
  object(v, out("schema_check").required(), r.schemaCheck);
  object(v, out("shape_check").required(), r.shapeCheck);
  v.field(out("note").required(), r.note);
}

}  // namespace kopt::tools
