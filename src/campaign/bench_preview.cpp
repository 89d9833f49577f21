#include "campaign/bench_preview.h"

namespace kopt::campaign {

measure::GateInput singleLookGateInput(const AssembledRuns& assembled, const measure::Calibration& calibration) {
  measure::GateInput input;
  input.bestPassLabels = assembled.bestPassLabels;
  input.candidateChecks = assembled.candidateChecks;
  input.runs = assembled.runs;
  input.calibration = calibration;
  return input;
}

BenchPreview previewBench(const std::vector<PairRun>& runs, const std::string& frozenHeader,
                          const std::vector<std::string>& expectedLabels, const measure::Calibration& calibration,
                          const measure::GatePolicy& policy) {
  BenchPreview preview;
  preview.assembled = assemble(runs, frozenHeader, expectedLabels);
  preview.gate = measure::evaluateGate(singleLookGateInput(preview.assembled, calibration), policy);
  return preview;
}

BenchFinished benchFinished(const BenchPreview& preview, const std::string& tag, const std::string& fingerprint,
                            bool full) {
  BenchFinished bench;
  bench.full = full;
  bench.pairs = preview.assembled.usablePairs;
  bench.fingerprint = fingerprint;
  bench.measurement = tag;
  bench.preview = measure::toString(preview.gate.decision);
  bench.problems = preview.assembled.problems;
  return bench;
}

}  // namespace kopt::campaign
