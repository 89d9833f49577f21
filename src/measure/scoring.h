#pragma once
// Turning a benchmark table into the numbers the loop decides on (loop-contract section 5): a
// per-shape score vector in the primary metric, and the geometric mean over PASS shapes. A PASS
// row whose primary metric is not a positive finite number cannot be scored; it is reported as a
// problem and counted as not PASS (never silently dropped).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "measure/bench_table.h"
#include "measure/samples_file.h"

namespace kopt::measure {

enum class PrimaryMetricKind {
  ForwardTflops,       // "Forward TFLOPS" (compute-bound, forward only)
  CombinedStepTflops,  // 6*B*M*N*K / (t_f + t_b), the training-step metric
  ForwardGbps,         // "Forward GB/s" (memory-bound)
  BackwardGbps,        // "Backward GB/s"
  Custom,              // a named metric column of the table (higher is better)
};

struct PrimaryMetric {
  PrimaryMetricKind kind = PrimaryMetricKind::ForwardTflops;
  std::string column;  // only for Custom

  // Accepts the manifest / turbo spellings: "Forward TFLOPS", "Combined Step TFLOPS",
  // "Forward GB/s", "Backward GB/s" (case-insensitive; also forward_tflops, combined_step_tflops,
  // forward_gbps, backward_gbps), else any column name of `schema` when given (-> Custom).
  static std::optional<PrimaryMetric> parse(std::string_view text, const Schema* schema = nullptr);
  std::string name() const;  // the display name, e.g. "Combined Step TFLOPS"
  std::string unit() const;  // "TFLOPS" | "GB/s" | the column name for Custom
  bool operator==(const PrimaryMetric& other) const { return kind == other.kind && column == other.column; }
};

// The default primary metric of a table: GEMM -> CombinedStepTflops when backward times are
// present on every row, else ForwardTflops; memory-bound -> ForwardGbps; custom -> first metric.
PrimaryMetric defaultPrimaryMetric(const BenchTable& table);

// Per-shape formulas (all throughput, higher is better).
// 6*B*M*N*K / ((fwdMs + bwdMs) * 1e-3) / 1e12, B defaulting to 1.
double combinedStepTflops(std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, double fwdMs, double bwdMs);
// The same from the two throughputs: 6 / (2/fwd + 4/bwd).
double combinedStepFromTflops(double fwdTflops, double bwdTflops);
double gemmForwardTflops(std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, double ms);   // 2BMNK/t
double gemmBackwardTflops(std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, double ms);  // 4BMNK/t
double gbPerSecond(double bytes, double ms);  // bytes / (ms*1e-3) / 1e9

// Geometric mean of positive finite values; NaN when empty or any value is not positive finite.
double geomean(const std::vector<double>& values);
// 100 * (candidate / baseline - 1).
double percentChange(double candidate, double baseline);

struct ShapeScore {
  std::string label;
  Check check = Check::Fail;
  double value = 0.0;   // the primary metric; NaN when not scorable
  std::string problem;  // why a PASS row could not be scored ("" when fine)
  bool countsAsPass() const { return check == Check::Pass && problem.empty(); }
};

struct ScoreVector {
  PrimaryMetric metric;
  std::vector<ShapeScore> shapes;  // table order
  double geomeanPass = 0.0;        // over countsAsPass() shapes; 0 when there is none
  std::size_t passCount = 0;
  bool allPass() const { return passCount == shapes.size(); }
  std::vector<std::string> passLabels() const;
  const ShapeScore* find(std::string_view label) const;
};

struct ScoreError {
  std::string message;  // e.g. "primary metric 'Forward GB/s' needs column 'Forward GB/s'"
  std::string fix;
};

std::variant<ScoreVector, ScoreError> scoreTable(const BenchTable& table, const PrimaryMetric& metric);

// One fresh-process run reduced to one throughput per shape, from the raw samples (median time
// of the run; CombinedStepTflops: (flops_f + flops_b) / (median_f + median_b); GB/s: bytes /
// median). Shapes whose series lack the needed direction or flops/bytes are left out, and named
// in `missing`. Custom metrics cannot be computed from samples (use the table's value instead).
struct RunSummary {
  std::vector<std::pair<std::string, double>> throughput;  // label -> value, file order
  std::vector<std::string> missing;
  std::optional<double> find(std::string_view label) const;
};
RunSummary summarizeRun(const SamplesFile& samples, const PrimaryMetric& metric);
// The same from a table (the harness's own per-run number), for schemas without samples.
RunSummary summarizeRun(const ScoreVector& scores);

}  // namespace kopt::measure
