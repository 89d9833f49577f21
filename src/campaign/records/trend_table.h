#pragma once
// logs/performance_trend.md: a header, then one row per round (append-only).
// GEMM columns (loop-contract section 3):
//   Round | Status | Description | Fwd Avg TFLOPS | Fwd Peak TFLOPS | Bwd Avg TFLOPS |
//   Bwd Peak TFLOPS | Combined Step TFLOPS | vs Baseline | Key Finding
// Memory-bound: Fwd Avg GB/s | Fwd Peak GB/s | Bwd Avg GB/s | Bwd Peak GB/s (no combined column),
// vs Baseline "fwd +Y.YYY%, bwd +Z.ZZZ%". Custom: "<col> Avg" | "<col> Peak" per metric column.
// Avg = geomean over PASS shapes, Peak = max (computed by the caller / src/measure).
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "campaign/manifest.h"
#include "campaign/records/record_types.h"

namespace kopt::campaign::records {

struct TrendColumns {
  std::vector<std::string> valueHeaders;  // between Description and vs Baseline
};
TrendColumns trendColumnsFor(const BenchSchema& schema);

struct VsBaselineTerm {
  std::string key;  // "step", "fwd", "bwd" (or a custom metric name)
  std::optional<double> pct;
};

struct TrendRow {
  int round = 0;
  RoundStatus status = RoundStatus::Baseline;
  std::string description;
  std::vector<std::optional<double>> values;  // aligned with TrendColumns::valueHeaders
  std::vector<VsBaselineTerm> vsBaseline;     // ignored on the baseline row ("—")
  std::string keyFinding;
};

// "step +1.234%, fwd -0.500%, bwd +2.000%"; a missing pct prints "n/a".
std::string formatVsBaseline(const std::vector<VsBaselineTerm>& terms);
// Numbers: 3 decimals ("301.250"), "—" when missing.
std::string formatTrendNumber(std::optional<double> v);
// Markdown-safe cell: '|' escaped, newlines folded into spaces.
std::string escapeCell(const std::string& text);

std::string renderTrendHeader(const TrendColumns& columns, const std::string& campaign);
std::string renderTrendRow(const TrendRow& row);

// Creates the file with its header when missing, then appends the row once (marker = event seq).
void appendTrendRow(const std::filesystem::path& trendMd, const TrendColumns& columns,
                    const std::string& campaign, const TrendRow& row, unsigned long long seq);

}  // namespace kopt::campaign::records
