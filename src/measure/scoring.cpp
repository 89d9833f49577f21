#include "measure/scoring.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_set>

namespace kopt::measure {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string normalized(std::string_view s) {
  // Case, spaces, '_' and '/' folded so "Forward GB/s", "forward_gbps" and "FORWARD GBPS" meet.
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '_' || c == '/' || c == '-') continue;
    out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool positiveFinite(double v) { return std::isfinite(v) && v > 0; }

std::string formatValue(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::optional<PrimaryMetric> PrimaryMetric::parse(std::string_view text, const Schema* schema) {
  std::string key = normalized(text);
  if (key.empty()) return std::nullopt;
  if (key == "forwardtflops" || key == "fwdtflops") return PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""};
  if (key == "combinedsteptflops" || key == "combinedtflops" || key == "steptflops")
    return PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""};
  if (key == "forwardgbs" || key == "forwardgbps" || key == "fwdgbps")
    return PrimaryMetric{PrimaryMetricKind::ForwardGbps, ""};
  if (key == "backwardgbs" || key == "backwardgbps" || key == "bwdgbps")
    return PrimaryMetric{PrimaryMetricKind::BackwardGbps, ""};
  std::string column(text);
  if (schema) {
    auto i = schema->indexOf(column);
    if (!i) return std::nullopt;
    if (*i < schema->isText.size() && schema->isText[*i]) return std::nullopt;
  }
  return PrimaryMetric{PrimaryMetricKind::Custom, column};
}

std::string PrimaryMetric::name() const {
  switch (kind) {
    case PrimaryMetricKind::ForwardTflops: return "Forward TFLOPS";
    case PrimaryMetricKind::CombinedStepTflops: return "Combined Step TFLOPS";
    case PrimaryMetricKind::ForwardGbps: return "Forward GB/s";
    case PrimaryMetricKind::BackwardGbps: return "Backward GB/s";
    case PrimaryMetricKind::Custom: return column;
  }
  return column;
}

std::string PrimaryMetric::unit() const {
  switch (kind) {
    case PrimaryMetricKind::ForwardTflops:
    case PrimaryMetricKind::CombinedStepTflops: return "TFLOPS";
    case PrimaryMetricKind::ForwardGbps:
    case PrimaryMetricKind::BackwardGbps: return "GB/s";
    case PrimaryMetricKind::Custom:
      if (column.find("TFLOPS") != std::string::npos) return "TFLOPS";
      if (column.find("GB/s") != std::string::npos) return "GB/s";
      return column;
  }
  return column;
}

PrimaryMetric defaultPrimaryMetric(const BenchTable& table) {
  switch (table.schema.kind) {
    case SchemaKind::Gemm: {
      for (const auto& row : table.rows) {
        if (row.check != Check::Pass) continue;
        auto bwd = table.value(row, "Backward Time (ms)");
        if (!bwd || !positiveFinite(*bwd)) return PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""};
      }
      return PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""};
    }
    case SchemaKind::MemoryBound: return PrimaryMetric{PrimaryMetricKind::ForwardGbps, ""};
    case SchemaKind::Custom:
      if (!table.schema.metricColumns.empty())
        return PrimaryMetric{PrimaryMetricKind::Custom, table.schema.metricColumns.front()};
      return PrimaryMetric{PrimaryMetricKind::Custom, ""};
  }
  return PrimaryMetric{};
}

double combinedStepTflops(std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, double fwdMs, double bwdMs) {
  double work = 6.0 * static_cast<double>(B) * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  return work / ((fwdMs + bwdMs) * 1e-3) / 1e12;
}

double combinedStepFromTflops(double fwdTflops, double bwdTflops) { return 6.0 / (2.0 / fwdTflops + 4.0 / bwdTflops); }

double gemmForwardTflops(std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, double ms) {
  return 2.0 * static_cast<double>(B) * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) /
         (ms * 1e-3) / 1e12;
}

double gemmBackwardTflops(std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, double ms) {
  return 2.0 * gemmForwardTflops(B, M, N, K, ms);
}

double gbPerSecond(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

double geomean(const std::vector<double>& values) {
  if (values.empty()) return kNaN;
  double sum = 0;
  for (double v : values) {
    if (!positiveFinite(v)) return kNaN;
    sum += std::log(v);
  }
  return std::exp(sum / static_cast<double>(values.size()));
}

double percentChange(double candidate, double baseline) { return 100.0 * (candidate / baseline - 1.0); }

std::vector<std::string> ScoreVector::passLabels() const {
  std::vector<std::string> out;
  for (const auto& s : shapes)
    if (s.countsAsPass()) out.push_back(s.label);
  return out;
}

const ShapeScore* ScoreVector::find(std::string_view label) const {
  for (const auto& s : shapes)
    if (s.label == label) return &s;
  return nullptr;
}

std::variant<ScoreVector, ScoreError> scoreTable(const BenchTable& table, const PrimaryMetric& metric) {
  const Schema& schema = table.schema;
  auto numericColumn = [&](const std::string& name) {
    auto i = schema.indexOf(name);
    return i && !(*i < schema.isText.size() && schema.isText[*i]);
  };
  auto needs = [&](const std::string& column) -> std::optional<ScoreError> {
    if (numericColumn(column)) return std::nullopt;
    return ScoreError{"primary metric '" + metric.name() + "' needs the numeric column '" + column +
                          "', which the table does not have",
                      "pick a primary metric the schema provides, or add the column to the harness output at BASELINE"};
  };

  bool combinedFromTimes = false;
  switch (metric.kind) {
    case PrimaryMetricKind::ForwardTflops:
      if (auto e = needs("Forward TFLOPS")) return *e;
      break;
    case PrimaryMetricKind::CombinedStepTflops: {
      combinedFromTimes = numericColumn("Forward Time (ms)") && numericColumn("Backward Time (ms)") &&
                          numericColumn("M") && numericColumn("N") && numericColumn("K");
      if (!combinedFromTimes) {
        if (auto e = needs("Forward TFLOPS")) return *e;
        if (auto e = needs("Backward TFLOPS")) return *e;
      }
      break;
    }
    case PrimaryMetricKind::ForwardGbps:
      if (auto e = needs("Forward GB/s")) return *e;
      break;
    case PrimaryMetricKind::BackwardGbps:
      if (auto e = needs("Backward GB/s")) return *e;
      break;
    case PrimaryMetricKind::Custom:
      if (metric.column.empty())
        return ScoreError{"the custom primary metric names no column", "name one of the schema's metric columns"};
      if (auto e = needs(metric.column)) return *e;
      break;
  }

  ScoreVector out;
  out.metric = metric;
  out.shapes.reserve(table.rows.size());
  double logSum = 0;
  for (const auto& row : table.rows) {
    ShapeScore s;
    s.label = row.label;
    s.check = row.check;
    double v = kNaN;
    switch (metric.kind) {
      case PrimaryMetricKind::ForwardTflops: v = *table.value(row, "Forward TFLOPS"); break;
      case PrimaryMetricKind::ForwardGbps: v = *table.value(row, "Forward GB/s"); break;
      case PrimaryMetricKind::BackwardGbps: v = *table.value(row, "Backward GB/s"); break;
      case PrimaryMetricKind::Custom: v = *table.value(row, metric.column); break;
      case PrimaryMetricKind::CombinedStepTflops: {
        double tf = combinedFromTimes ? *table.value(row, "Forward Time (ms)") : kNaN;
        double tb = combinedFromTimes ? *table.value(row, "Backward Time (ms)") : kNaN;
        const ShapeDims& d = row.shape;
        if (combinedFromTimes && positiveFinite(tf) && positiveFinite(tb) && d.M && d.N && d.K) {
          v = combinedStepTflops(d.B.value_or(1), *d.M, *d.N, *d.K, tf, tb);
        } else {
          auto f = table.value(row, "Forward TFLOPS");
          auto b = table.value(row, "Backward TFLOPS");
          if (f && b && positiveFinite(*f) && positiveFinite(*b)) v = combinedStepFromTflops(*f, *b);
        }
        break;
      }
    }
    s.value = v;
    if (row.check == Check::Pass && !positiveFinite(v))
      s.problem = "line " + std::to_string(row.line) + " (" + row.label + ") is PASS but its " + metric.name() + " is " +
                  formatValue(v) + "; counted as not PASS";
    if (s.countsAsPass()) {
      ++out.passCount;
      logSum += std::log(v);
    }
    out.shapes.push_back(std::move(s));
  }
  out.geomeanPass = out.passCount ? std::exp(logSum / static_cast<double>(out.passCount)) : 0.0;
  return out;
}

std::optional<double> RunSummary::find(std::string_view label) const {
  for (const auto& [l, v] : throughput)
    if (l == label) return v;
  return std::nullopt;
}

RunSummary summarizeRun(const SamplesFile& samples, const PrimaryMetric& metric) {
  RunSummary out;
  std::unordered_set<std::string> done;
  for (const auto& series : samples.series) {
    if (!done.insert(series.label).second) continue;
    const std::string& label = series.label;
    const SampleSeries* fwd = samples.find(label, Direction::Forward);
    const SampleSeries* bwd = samples.find(label, Direction::Backward);
    double v = kNaN;
    switch (metric.kind) {
      case PrimaryMetricKind::ForwardTflops:
        if (fwd && fwd->flops) v = *fwd->flops / (fwd->medianMs() * 1e-3) / 1e12;
        break;
      case PrimaryMetricKind::CombinedStepTflops:
        if (fwd && bwd && fwd->flops && bwd->flops)
          v = (*fwd->flops + *bwd->flops) / ((fwd->medianMs() + bwd->medianMs()) * 1e-3) / 1e12;
        break;
      case PrimaryMetricKind::ForwardGbps:
        if (fwd && fwd->bytes) v = gbPerSecond(*fwd->bytes, fwd->medianMs());
        break;
      case PrimaryMetricKind::BackwardGbps:
        if (bwd && bwd->bytes) v = gbPerSecond(*bwd->bytes, bwd->medianMs());
        break;
      case PrimaryMetricKind::Custom: break;
    }
    if (positiveFinite(v)) out.throughput.emplace_back(label, v);
    else out.missing.push_back(label);
  }
  return out;
}

RunSummary summarizeRun(const ScoreVector& scores) {
  RunSummary out;
  for (const auto& s : scores.shapes) {
    if (s.countsAsPass()) out.throughput.emplace_back(s.label, s.value);
    else out.missing.push_back(s.label);
  }
  return out;
}

}  // namespace kopt::measure
