#pragma once
// The per-shape statistical gate (measurement.md B.2, docs/statistics.md): is the candidate
// correct, and really better than the current best on every shape?
//
// Unit of replication: one fresh-process run. The engine runs the current best and the candidate
// interleaved (A B A B ..., or randomized per pair) and reduces each run to one throughput per
// shape (scoring.h summarizeRun). Pair i = (best run i, candidate run i), measured back to back,
// so slow drift (clocks, heat, co-tenants) cancels in the ratio.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/bench_table.h"

namespace kopt::measure {

// The readable policy. Defaults keep the skill's fixed thresholds (loop-contract section 5) as the
// guard rails around the statistics; a manifest may override any of them.
struct GatePolicy {
  // Family-wise error rate across all shapes of one round (Holm over the per-shape tests; the
  // reported per-shape CIs are simultaneous, Bonferroni level 1 - alpha/k).
  double familyWiseAlpha = 0.05;
  // Confidence level of the aggregate (geomean) CI; one statistic, no multiplicity.
  double aggregateConfidence = 0.95;
  // delta_shape = clamp(max(deltaFloor, A/A quantile of |log ratio|), ..., regressionTolerance).
  double deltaFloor = 0.01;             // criterion's 1% noise floor
  double aaQuantile = 0.975;
  // The skill's "a shape regressed >= 5% is a hard reject": delta never exceeds it, so a noisy
  // shape cannot hide a 5% regression as SAME, and a shape whose MDE exceeds it is reported blind.
  double regressionTolerance = 0.05;
  // ACCEPT needs the aggregate CI lower bound > 1 + acceptanceDelta ...
  double acceptanceDelta = 0.0;
  // ... and the aggregate point gain > minGain (the skill: "accept only if the mean gain > 1%").
  double minGain = 0.01;
  // The skill's near-noise rule: a gain below nearNoiseGain needs nearNoiseRemeasures extra
  // interleaved pairs beyond the default before it can be accepted.
  double nearNoiseGain = 0.02;
  int nearNoiseRemeasures = 3;
  // A claimed aggregate gain above max(largeWin, 3 * median delta) is confirmed by one more batch
  // of fresh-process pairs before ACCEPT (Sakana / autoresearch non-reproducing wins).
  double largeWin = 0.05;
  // The skill's chain integrity: the candidate's absolute aggregate must not fall more than 1%
  // below the recorded best (a NOTE by default: interleaved pairs already compare like with like,
  // a drop across sessions is more often the machine than the kernel).
  double chainDrop = 0.01;
  bool chainDropIsFatal = false;
  // Sampling plan the engine follows: pairs per VALIDATE, pairs added per REMEASURE, and the cap
  // after which INCONCLUSIVE means ROLLBACK ("not shown better"). 8 pairs: at 0.5% per-run noise a
  // 3% slowdown is REGRESSED in >99% of simulated rounds and A/A shapes are SAME in >99%
  // (docs/statistics.md has the table for 5-10 pairs).
  int defaultPairs = 8;
  int remeasurePairs = 8;
  int maxPairs = 24;
  // Pairs of the BASELINE A/A calibration: more than a round's, because every later delta rests on
  // it (12 instead of 8 lifts A/A all-SAME rounds of 20 shapes from 85% to 91% in simulation).
  int calibrationPairs = 12;
  int minPairs = 3;  // below this no verdict is possible (REMEASURE)
  // Per-shape reasons of one code listed one by one before the rest are summed up in one reason
  // ("... and 480 more shapes"); the per-shape verdicts always list every shape.
  int maxReasonsPerCode = 25;
  // Aggregate bootstrap: resamples and the fixed seed that makes every verdict reproducible.
  int bootstrapResamples = 10000;
  std::uint64_t seed = 0x6b6f7074;  // "kopt"
};

// Per-run throughput summaries of one shape, paired by index: best[i] and candidate[i] were
// measured back to back. Higher is better (convert times with 1/t before).
struct PairedRuns {
  std::string label;
  std::vector<double> best;
  std::vector<double> candidate;
};

// ---- A/A calibration (BASELINE: the same build measured against itself, interleaved) ----

struct ShapeNoise {
  std::string label;
  std::size_t pairs = 0;
  double sdLogRatio = 0.0;  // sample sd of the paired log ratios (the per-pair noise)
  double q975 = 0.0;        // empirical aaQuantile of |log ratio|
  double delta = 0.0;       // the practical threshold (relative, e.g. 0.012) used by every later round
};

struct Calibration {
  std::vector<ShapeNoise> shapes;
  const ShapeNoise* find(const std::string& label) const;
};

// delta = min(regressionTolerance, max(deltaFloor, empirical quantile of |d|, z * sd(d))), z the
// normal quantile matching aaQuantile for |d| (2.24 at 0.975): the empirical quantile of 5-8
// pairs is close to their max and unstable, the parametric one uses every pair.
Calibration calibrateAa(const std::vector<PairedRuns>& aa, const GatePolicy& policy);

// ---- Per-shape verdicts ----

enum class Verdict { Improved, Same, Regressed, Inconclusive };
const char* toString(Verdict verdict);  // "IMPROVED" | "SAME" | "REGRESSED" | "INCONCLUSIVE"

struct ShapeVerdict {
  std::string label;
  Verdict verdict = Verdict::Inconclusive;
  std::size_t pairs = 0;
  double ratio = 1.0;                  // candidate / best, exp(mean log ratio)
  double ciLow = 0.0, ciHigh = 0.0;    // simultaneous CI of the ratio (level 1 - alpha/k)
  double tostLow = 0.0, tostHigh = 0.0;  // equivalence interval of the ratio (level 1 - 2 alpha)
  double delta = 0.0;                  // practical threshold (relative, e.g. 0.012 = 1.2%)
  double pRegressed = 1.0;             // Holm-adjusted p of "slower than no change" (1 when faster)
  double pImproved = 1.0;              // Holm-adjusted p of "faster than no change" (1 when slower)
  double mde = 0.0;                    // relative slowdown flagged REGRESSED with 80% power
  double sdLogRatio = 0.0;             // this round's per-pair noise
  bool slowedWithinDelta = false;      // SAME, but significantly slower (Holm): a NOTE
  // The equivalence interval's lower end is above -delta: whatever the verdict, this shape cannot
  // have slowed by more than delta. An INCONCLUSIVE shape with this set (faster, but not shown
  // beyond delta) does not need re-measuring; the aggregate judges the gain.
  bool regressionExcluded = false;
  // Why the verdict needs attention: REGRESSED, IMPROVED, a slowdown within delta, an INCONCLUSIVE
  // that needs more pairs; empty otherwise. E.g. "slower by 0.60%, within delta 1.20%".
  std::string note;
};

// Verdict rules on the log scale, d = log(candidate/best) per pair, m its mean:
//   REGRESSED    Holm (two-sided, over the k shapes) rejects "no change", m < 0 and m < -delta
//   IMPROVED     Holm rejects "no change", m > 0 and m > +delta
//   SAME         the (1 - 2 alpha) interval lies inside [-delta, +delta] (TOST equivalence)
//   INCONCLUSIVE anything else: measure again (never a coin flip) unless regressionExcluded
// Multiplicity control sits on REGRESSED/IMPROVED, the claims made about many unchanged shapes at
// once; a false SAME can only happen on a shape that truly moved by more than delta, so SAME is a
// per-shape equivalence test (docs/statistics.md). Shapes without calibration use deltaFloor.
std::vector<ShapeVerdict> compareShapes(const std::vector<PairedRuns>& runs, const Calibration& calibration,
                                        const GatePolicy& policy);

// ---- Aggregate: geomean of per-shape ratios ----

struct AggregateEstimate {
  double ratio = 1.0;  // geomean over shapes of the per-shape ratios
  double ciLow = 0.0, ciHigh = 0.0;
  std::size_t pairs = 0;  // pairs common to all shapes (resampled jointly)
};

// Paired bootstrap over pair indices (all shapes resampled together, keeping their correlation),
// widened to at least the t-interval of the per-pair geomean log ratio: at 5-8 pairs the
// percentile bootstrap alone covers less than its nominal level.
AggregateEstimate aggregateRatio(const std::vector<PairedRuns>& runs, const GatePolicy& policy);

// Both at once, sharing the log ratios (what the gate uses).
struct RoundComparison {
  std::vector<ShapeVerdict> shapes;
  std::optional<AggregateEstimate> aggregate;  // nullopt when there are no runs
};
RoundComparison compareRound(const std::vector<PairedRuns>& runs, const Calibration& calibration, const GatePolicy& policy);

// ---- The gate ----

enum class Decision { Accept, AcceptWithNote, Rollback, Remeasure };
const char* toString(Decision decision);  // "ACCEPT" | "ACCEPT_WITH_NOTE" | "ROLLBACK" | "REMEASURE"

enum class ReasonCode {
  CheckNotPass,          // a candidate row is FAIL/ERROR (or PASS with an unscorable metric)
  PassSetShrank,         // a shape PASS in the best is not PASS in the candidate
  MissingShape,          // a shape of the best has no paired runs
  TooFewPairs,           // fewer than minPairs pairs: no verdict possible yet
  ShapeRegressed,        // REGRESSED after family-wise control
  ShapeInconclusive,     // INCONCLUSIVE: more pairs needed
  NotShownBetter,        // INCONCLUSIVE or straddling at the pair cap
  AggregateStraddles,    // aggregate CI contains 1 + acceptanceDelta
  AggregateNotBetter,    // aggregate CI entirely at or below 1 + acceptanceDelta
  GainBelowMinimum,      // significant but smaller than minGain
  NearNoiseNeedsPairs,   // gain < nearNoiseGain with too few pairs (the skill's 3 re-measures)
  ConfirmLargeWin,       // a large claimed win gets one confirmation batch
  ShapeSlowedWithinNoise,  // NOTE: slower but SAME (within delta)
  ShapeBlind,            // NOTE: MDE above regressionTolerance at this shape
  ChainDrop,             // absolute aggregate fell more than chainDrop below the recorded best
  Improved,              // the accepting reason
};
const char* toString(ReasonCode code);  // snake_case, e.g. "pass_set_shrank"

struct Reason {
  ReasonCode code;
  std::string label;  // the shape, "" for the aggregate
  std::string message;
};

struct GateInput {
  // Labels PASS in the current best (its score vector), and the candidate's checks per shape
  // (the worst check over all of its runs: a shape that failed once is not PASS).
  std::vector<std::string> bestPassLabels;
  std::vector<std::pair<std::string, Check>> candidateChecks;
  // Interleaved pairs for the shapes PASS in both.
  std::vector<PairedRuns> runs;
  Calibration calibration;
  // How many REMEASURE batches were already run for this candidate (0 at first evaluation).
  int remeasureBatches = 0;
  // Chain integrity (optional): the recorded best aggregate and the candidate's, same metric.
  std::optional<double> recordedBestAggregate;
  std::optional<double> candidateAggregate;
};

struct GateResult {
  Decision decision = Decision::Rollback;
  std::vector<Reason> reasons;  // every reason that applies, the deciding one first
  std::vector<ShapeVerdict> shapes;
  std::optional<AggregateEstimate> aggregate;
  int pairsToAdd = 0;           // REMEASURE: how many interleaved pairs the engine runs next
};

GateResult evaluateGate(const GateInput& input, const GatePolicy& policy);

// ---- Helpers (also used by the tests and docs) ----

// Student t quantile and upper tail; df > 0.
double studentTQuantile(double p, double df);
double studentTUpperTail(double t, double df);
double normalQuantile(double p);
// Holm step-down adjusted p-values (same order as the input).
std::vector<double> holmAdjust(const std::vector<double>& pValues);
// The slowdown (log scale) flagged REGRESSED with probability `power`, for n pairs of per-pair sd
// `sdLogRatio`, a two-sided per-test level `alpha` (alpha/k: Holm's first step) and the practical
// threshold `delta` (log scale) the estimate must also pass:
//   max(delta, t_{1-alpha/2, n-1} * se) + t_{power, n-1} * se,  se = sd / sqrt(n).
double minimumDetectableEffect(double sdLogRatio, std::size_t pairs, double alpha, double delta, double power = 0.8);

}  // namespace kopt::measure
