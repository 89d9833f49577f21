#pragma once
// The host half of every native bench main: the command line, shape selection and order, one row
// per shape whatever happens (a shape that throws gets a FAIL row with nan metrics), the frozen
// CSV, the samples file, and the exit code. The GPU half (what one shape does) is a callback, so
// this part is tested on machines without a GPU.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/hip/bench_cli.h"
#include "harness/hip/sampling.h"
#include "harness/hip/summary_csv.h"

namespace kopt::hipbench {

struct Shape {
  std::string label;
  long long b = 1, m = 0, n = 0, k = 0;  // k: GEMM only
};

struct DirectionTiming {
  std::vector<double> timesMs;
  StopReason stop = StopReason::Rsd;
  double workPerCall = 0;  // FLOPs (GEMM schema) or bytes (memory schema) of one call
};

struct ShapeOutcome {
  bool pass = false;
  std::vector<double> checkValues;  // gemm: out_snr, da_snr, db_snr; memory: max_abs_err
  std::optional<DirectionTiming> forward;
  std::optional<DirectionTiming> backward;
  std::string note;  // why it failed, printed on stderr
};

struct RunContext {
  std::uint64_t seed = 0;
  bool checkOnly = false;
  SamplingPolicy sampling;
  std::optional<std::uint64_t> flushBytes;
  bool launchCover = true;  // see timeAdaptive
  FlushMode flushMode = FlushMode::Read;
};

// A wrong answer found while timing (the per-sample spot check): the shape becomes a FAIL row.
class CheckFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BenchDefinition {
  std::string harness;                 // "hip_gemm", "hip_rmsnorm"
  Schema schema = Schema::Gemm;
  std::vector<Shape> shapes;           // the default shape set, in output order
  std::vector<Shape> edgeShapes;       // extra shapes --check-only also runs (odd sizes, tails)
  std::function<std::string()> deviceName;
  // Called once before the first shape (device setup); a throw aborts the run with exit code 1.
  std::function<void(const RunContext&)> setUp;
  std::function<ShapeOutcome(const Shape&, const RunContext&)> runShape;
};

// Returns the process exit code: 0 table written (FAIL rows included), 1 harness failure (cannot
// write the files, setUp failed), 2 usage error (bad option, unknown shape label). With
// --check-only: 0 iff every shape PASSes.
int runBench(const std::vector<std::string>& args, const BenchDefinition& bench, std::ostream& out, std::ostream& err);
int runBenchMain(int argc, char** argv, const BenchDefinition& bench);

// Rows from outcomes: the metrics at the median time and their per-sample spread.
SummaryRow summaryRow(Schema schema, const Shape& shape, const ShapeOutcome& outcome);

// Writes `text` to `path` through a temporary file and a rename: no half-written table.
bool writeFileAtomically(const std::string& path, const std::string& text, std::string* error);

}  // namespace kopt::hipbench
