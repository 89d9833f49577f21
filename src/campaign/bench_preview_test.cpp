#include "campaign/bench_preview.h"

#include <doctest/doctest.h>

using namespace kopt::campaign;
namespace measure = kopt::measure;

namespace {

AssembledRuns twoShapes() {
  AssembledRuns a;
  a.runs = {{"s1", {100.0, 101.0}, {120.0, 121.0}}, {"s2", {50.0, 50.5}, {49.0, 49.5}}};
  a.candidateChecks = {{"s1", measure::Check::Pass}, {"s2", measure::Check::Pass}};
  a.bestPassLabels = {"s1", "s2"};
  a.usablePairs = 2;
  return a;
}

}  // namespace

TEST_CASE("bench preview: one look over every pair, with the campaign's calibration and nothing else") {
  measure::Calibration calibration;
  calibration.shapes.push_back(measure::ShapeNoise{});
  calibration.shapes.back().label = "s1";
  const measure::GateInput input = singleLookGateInput(twoShapes(), calibration);
  CHECK(input.bestPassLabels == std::vector<std::string>{"s1", "s2"});
  REQUIRE(input.runs.size() == 2);
  CHECK(input.runs[1].candidate == std::vector<double>{49.0, 49.5});
  CHECK(input.candidateChecks.size() == 2);
  REQUIRE(input.calibration.shapes.size() == 1);
  CHECK(input.calibration.shapes[0].label == "s1");
  // A preview is not a re-measurement and has no recorded best to chain to.
  CHECK(input.remeasureBatches == 0);
  CHECK(input.look == 0);
  CHECK_FALSE(input.recordedBestAggregate);
  CHECK_FALSE(input.candidateAggregate);
}

TEST_CASE("bench preview: the ledger's bench_finished names the tag, the tree, the usable pairs and the preview") {
  BenchPreview preview;
  preview.assembled = twoShapes();
  preview.assembled.problems = {"pair 1: best run exited with code 1"};
  preview.gate.decision = measure::Decision::Remeasure;
  const BenchFinished quick = benchFinished(preview, "r2-quick-1", "fp", false);
  CHECK_FALSE(quick.full);
  CHECK(quick.pairs == 2);
  CHECK(quick.fingerprint == "fp");
  CHECK(quick.measurement == "r2-quick-1");
  CHECK(quick.preview == "REMEASURE");
  CHECK(quick.problems == preview.assembled.problems);
  CHECK(quick.at.empty());  // stamped when recorded
  CHECK(benchFinished(preview, "r2-full-2", "fp", true).full);
}
