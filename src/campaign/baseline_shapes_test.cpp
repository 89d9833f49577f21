// The baseline's shape decisions, on tables parsed from real harness CSV text.
#include <doctest/doctest.h>

#include "campaign/baseline_shapes.h"

namespace kopt::campaign {
namespace {

const char* kGemmCsv =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time "
    "(ms),Backward Time (ms),out_snr,da_snr,db_snr\n"
    "mm_1k,1,1024,1024,1024,PASS,100,1,90,1,0.02,0.04,50,50,50\n"
    "mm_4k,2,4096,4096,4096,PASS,600,1,580,1,0.2,0.4,50,50,50\n";

PairRun runWith(const char* csv) {
  PairRun p;
  p.candidate.table = std::get<measure::BenchTable>(measure::parseBenchCsv(csv));
  return p;
}

ShapeRow row(const std::string& label, double value) {
  ShapeRow r;
  r.label = label;
  r.candidate = value;
  return r;
}

TEST_CASE("baseline shapes: the manifest's target shapes, else the first table's") {
  const std::vector<PairRun> runs = {PairRun{}, runWith(kGemmCsv)};
  CHECK(firstCandidateTable(runs) == &*runs[1].candidate.table);
  CHECK(firstCandidateTable({PairRun{}}) == nullptr);
  CHECK(baselineShapeSet(runs, TargetShapes{}) == std::vector<std::string>{"mm_1k", "mm_4k"});
  CHECK(baselineShapeSet(runs, TargetShapes{false, {"mm_4k"}}) == std::vector<std::string>{"mm_4k"});
  CHECK(baselineShapeSet({PairRun{}}, TargetShapes{}).empty());
}

TEST_CASE("baseline shapes: a run's problems, a shape not PASS and no shape at all stop the baseline") {
  AssembledRuns clean;
  clean.candidateChecks = {{"mm_1k", measure::Check::Pass}};
  CHECK(baselineProblems(clean, {"mm_1k"}).empty());

  AssembledRuns dirty;
  dirty.problems = {"pair 2: the best run wrote no table"};
  dirty.candidateChecks = {{"mm_1k", measure::Check::Pass}, {"mm_4k", measure::Check::Fail}};
  CHECK(baselineProblems(dirty, {"mm_1k", "mm_4k"}) ==
        std::vector<std::string>{"pair 2: the best run wrote no table", "mm_4k is FAIL"});
  CHECK(baselineProblems(clean, {}) == std::vector<std::string>{"the benchmark reported no shapes"});
}

TEST_CASE("baseline shapes: representative shapes named, all of a few, or five spread over the range") {
  const std::vector<std::string> few = {"a", "b", "c"};
  CHECK(std::get<0>(representativeShapes({}, few, {})) == few);
  CHECK(std::get<0>(representativeShapes({"b"}, few, {})) == std::vector<std::string>{"b"});
  CHECK(std::get<1>(representativeShapes({"z"}, few, {})) ==
        "representative shape 'z' is not one of the benchmark's shapes: a, b, c");

  // Nine shapes, metric 9 .. 1: the slowest, the fastest and three evenly spaced ranks, in the
  // benchmark's order.
  std::vector<std::string> labels;
  std::vector<ShapeRow> rows;
  for (int i = 0; i < 9; ++i) {
    labels.push_back("s" + std::to_string(i));
    rows.push_back(row(labels.back(), 9.0 - i));
  }
  CHECK(std::get<0>(representativeShapes({}, labels, rows)) == std::vector<std::string>{"s0", "s2", "s4", "s6", "s8"});
}

TEST_CASE("baseline shapes: the quick harness learns the table's shapes in its one SHAPES line") {
  const auto table = std::get<measure::BenchTable>(measure::parseBenchCsv(kGemmCsv));
  CHECK(withQuickHarnessShapes("x = 1\nSHAPES = []\ny = 2\n", table) ==
        "x = 1\nSHAPES = [(\"mm_1k\", 1, 1024, 1024, 1024), (\"mm_4k\", 2, 4096, 4096, 4096)]\ny = 2\n");
  CHECK(withQuickHarnessShapes("SHAPES = [(\"x\", 1, 2, 3)]\n", table) == "SHAPES = [(\"x\", 1, 2, 3)]\n");
}

}  // namespace
}  // namespace kopt::campaign
