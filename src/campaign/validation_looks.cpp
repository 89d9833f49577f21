#include "campaign/validation_looks.h"

#include <algorithm>

#include "campaign/command_outcome.h"
#include "campaign/engine_steps.h"
#include "campaign/loop_policy.h"
#include "campaign/measured_record.h"
#include "campaign/measurement_setup.h"
#include "campaign/worktree_build.h"
#include "measure/percent_format.h"
#include "util/text.h"

namespace kopt::campaign {

std::string validationTag(int round, bool full, int ordinal) {
  return "r" + std::to_string(round) + "-validate-" + (full ? "full" : "quick") + "-" + std::to_string(ordinal);
}

int pairsForNextLook(bool workers, int perLook, const measure::GatePolicy& policy, int pairsSoFar, int gatePairsToAdd) {
  const int room = workers ? perLook : policy.maxPairs - pairsSoFar;
  if (room <= 0) return 0;
  if (workers) return perLook;
  return std::max(1, std::min(gatePairsToAdd > 0 ? gatePairsToAdd : policy.remeasurePairs, room));
}

bool escalatesToFull(const ValidationVerdict& verdict, bool full, double gain, double escalateBelowGain,
                     bool fullShapesDiffer) {
  return verdict.accepting() && !full && gain < escalateBelowGain && fullShapesDiffer;
}

std::string measurementCheckLine(const AssembledRuns& assembled) {
  const bool allPass = std::all_of(assembled.candidateChecks.begin(), assembled.candidateChecks.end(),
                                   [](const auto& c) { return c.second == measure::Check::Pass; });
  return "all Check PASS, schema byte-identical and shape set identical: " +
         std::string(assembled.schemaDrift || assembled.shapeSetDrift || !allPass ? "no" : "yes");
}

namespace detail {
namespace {

// The gate's input at one look. Chain integrity compares like with like: only when the recorded
// best was measured on the same shape set.
measure::GateInput gateInputAt(const OpenCampaign& s, const ValidationRun& run, bool workers, int batches) {
  measure::GateInput input;
  input.bestPassLabels = run.assembled.bestPassLabels;
  input.candidateChecks = run.assembled.candidateChecks;
  input.runs = run.assembled.runs;
  // Worker mode: every look is one fresh pair of worker sessions.
  input.calibration = calibrationOf(s).forSessions(workers ? batches + 1 : 1);
  input.remeasureBatches = batches;
  input.look = batches + 1;
  auto bestRecord = roundRecord(s, s.state.bestRound.value_or(1));
  std::vector<std::string> bestLabels;
  if (bestRecord) {
    for (const auto& r : bestRecord->results) bestLabels.push_back(r.label);
  }
  if (bestRecord && bestLabels == run.assembled.labels) {
    input.recordedBestAggregate = bestRecord->aggregate.value;
    // The candidate's absolute aggregate, same definition as the records' (median runs).
    std::vector<double> medians;
    for (const auto& [label, check] : run.assembled.candidateChecks) {
      if (auto m = armMedian(run.pairs, true, label); m && check == measure::Check::Pass) medians.push_back(*m);
    }
    if (!medians.empty() && medians.size() == run.assembled.candidateChecks.size()) {
      input.candidateAggregate = measure::geomean(medians);
    }
  }
  return input;
}

// The looks of one measurement: the gate judges the pairs so far, and while it says REMEASURE
// (and the runs are comparable) fresh pairs are added. Stops early when cancelled or when a run
// is lost; the caller tells those apart.
std::optional<Stop> runLooks(const ValidationContext& c, MeasurementRunner& runner, const MeasurementPlan& plan,
                                    int perLook, double& done, ValidationRun& run) {
  int batches = 0;
  while (!c.ctx.cancel.cancelled() && runner.lostRun().empty()) {
    writeMeasurementIndex(c.paths.artifacts / ("measurement-" + run.tags.back() + ".json"), run.tags.back(),
                          c.fingerprint, run.full, run.pairs);
    run.assembled = assemble(run.pairs, frozenHeader(c.session), expectedLabels(c.session, run.full));
    // A candidate that failed is judged (ROLLBACK) even when the best has nothing to compare.
    if (run.assembled.bestRunFailed && !run.assembled.candidateRunFailed) {
      c.session.clearStep();
      return toolFailure("a bench run of the current best failed, so no comparison is possible: " +
                             util::join(run.assembled.problems, "; "),
                         "", "check the environment (the best build is unchanged since it was accepted)");
    }
    run.gate = measure::evaluateGate(gateInputAt(c.session, run, plan.workers, batches), c.policy);
    if (run.gate->decision != measure::Decision::Remeasure || run.assembled.schemaDrift || run.assembled.shapeSetDrift) break;
    // The gate returns REMEASURE only while looks remain; the pair cap bounds process pairs.
    const int add = pairsForNextLook(plan.workers, perLook, c.policy, static_cast<int>(run.pairs.size()), run.gate->pairsToAdd);
    if (add <= 0) break;
    c.ctx.report(done, c.progressTotal,
                 "gate says REMEASURE: look " + std::to_string(batches + 2) + ", " + std::to_string(add) + " more interleaved pairs");
    auto more = runner.run(plan, static_cast<int>(run.pairs.size()), add, c.ctx, done, c.progressTotal);
    done += 2.0 * more.size();
    for (auto& p : more) run.pairs.push_back(std::move(p));
    ++batches;
  }
  return std::nullopt;
}

// One measurement (quick or full) from fresh pairs to the verdict of its last look.
std::optional<Stop> measureStage(const ValidationContext& c, MeasurementRunner& runner, int ordinal,
                                        double& done, ValidationRun& run) {
  run.tags.push_back(validationTag(c.round, run.full, ordinal));
  MeasurementPlan plan = planFor(c.session, run.full, c.session.paths.bestWorktree, c.paths.artifacts / "runs", run.tags.back());
  run.pairs.clear();
  // Always fresh pairs: the agent has seen every run_quick_bench measurement (and may have
  // re-rolled it until its preview looked good), so none of them may become the verdict.
  c.session.beginStep(c.round, "validate", PendingMeasurement{run.tags.back(), {}, ""});
  // Every look adds the same number of fresh pairs (blocks): the per-look levels of the gate
  // assume equally spaced information.
  const int perLook = plan.workers ? blocksPerLookOf(c.session, c.policy) : c.policy.defaultPairs;
  auto fresh = runner.run(plan, 0, perLook, c.ctx, done, c.progressTotal);
  done += 2.0 * fresh.size();
  run.pairs = std::move(fresh);
  c.session.checkpoint("validate:after-pairs");
  if (auto stop = runLooks(c, runner, plan, perLook, done, run)) return stop;
  if (c.ctx.cancel.cancelled()) {
    for (const auto& t : run.tags) discardMeasurement(c.session, c.round, t);
    c.session.clearStep();
    return toolFailure("validate_round was cancelled; its partial runs were discarded");
  }
  if (!runner.lostRun().empty()) {
    for (const auto& t : run.tags) discardMeasurement(c.session, c.round, t);
    c.session.clearStep();
    return lostRunFailure("validate_round", runner.lostRun());
  }
  // Schema and shape set are hard errors that name the difference.
  run.verdict = run.assembled.schemaDrift || run.assembled.shapeSetDrift
                    ? driftVerdict(run.assembled)
                    : gateVerdict(*run.gate, run.assembled.problems, run.pairs.size());
  return std::nullopt;
}

}  // namespace

std::optional<Stop> measureAndGate(const ValidationContext& c, const std::function<std::uint64_t()>& seeds,
                                          ValidationRun& run, std::vector<std::string>& checks) {
  if (auto failure = bestTreeFailure(c.session, c.executor, c.paths.artifacts / "best_build.log", "validate_round", c.ctx)) {
    return *failure;
  }
  MeasurementRunner runner(c.executor, seeds);
  int ordinal = measurementOrdinal(c.session, c.round);
  double done = 2;
  for (int stage = 0; stage < 2 && !run.verdict.decided(); ++stage) {
    if (auto stop = measureStage(c, runner, ordinal, done, run)) return stop;
    // Escalation: a small quick-validation win is confirmed on all target shapes.
    const double gain = run.gate && run.gate->aggregate ? run.gate->aggregate->ratio - 1.0 : 0.0;
    const bool fullShapesDiffer = expectedLabels(c.session, true) != expectedLabels(c.session, false);
    if (!escalatesToFull(run.verdict, run.full, gain, loopPolicy().escalateBelowGain, fullShapesDiffer)) break;
    std::string note = "quick win below ";
    measure::appendPercent(note, loopPolicy().escalateBelowGain);
    c.ctx.report(done, c.progressTotal, note + ": escalating to full validation on all target shapes");
    run.verdict = ValidationVerdict{};
    run.full = true;
    ++ordinal;
  }
  checks.push_back(measurementCheckLine(run.assembled));
  publishBenchmarkCsv(run.pairs, c.paths);
  return std::nullopt;
}

}  // namespace detail
}  // namespace kopt::campaign
