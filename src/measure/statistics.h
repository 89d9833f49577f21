#pragma once
// The per-shape statistical gate (measurement.md B.2, docs/statistics.md): is the candidate
// correct, and really better than the current best on every shape?
//
// Unit of replication: one block (harness/WORKER-PROTOCOL.md): four interleaved batches, ABBA or BAAB,
// of the best (A) and the candidate (B) inside two persistent worker processes, reduced to one
// throughput per arm and shape. Pair i = block i. (With the csv protocol a pair is still two fresh
// processes; the statistics are the same.) The BASELINE A/A checks that blocks are a valid unit
// (checkHarness); a shape where they are not falls back to process means.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/bench_table.h"
#include "measure/verdict.h"

namespace kopt::measure {

// The readable policy. Defaults keep the skill's fixed thresholds (loop-contract section 5) as the
// guard rails around the statistics; a manifest may override any of them.
struct GatePolicy {
  // Family-wise error rate across all shapes of one round AND all of its looks (Holm over the
  // per-shape tests, each look at the Pocock level; the reported per-shape CIs are simultaneous,
  // level 1 - pocockNominalAlpha(maxLooks, alpha/k)).
  double familyWiseAlpha = 0.05;
  // Confidence level of the aggregate (geomean) CI over all looks: each look's interval is at the
  // Pocock level, so a no-change candidate clears its lower bound at some look with probability
  // at most (1 - aggregateConfidence) / 2.
  double aggregateConfidence = 0.95;
  // The practical threshold delta of every shape: a policy margin, not the A/A noise (the noise is
  // what the t-tests and the sample size account for; measurement-review 1.4). Clamped to
  // [deltaFloor, regressionTolerance].
  double margin = 0.015;
  double deltaFloor = 0.01;             // criterion's 1% noise floor
  double aaQuantile = 0.975;            // only reported (ShapeNoise::q975); no longer sets delta
  // The skill's "a shape regressed >= 5% is a hard reject": delta never exceeds it, a shape whose
  // MDE exceeds it is reported blind, and no shape's tolerance (below) is wider.
  double regressionTolerance = 0.05;
  // Each shape's non-inferiority tolerance (ShapeNoise::tolerance) is fixed at BASELINE as the
  // slowdown an unchanged shape is shown not to exceed, with this power, at the first look:
  // (t_{1-a} + t_{power}) x the look's SE, a the one-sided TOST level, clamped to
  // [margin, regressionTolerance]. A quiet shape gets the margin, a noisy one what its precision
  // allows; a shape that cannot be shown within regressionTolerance in maxLooks looks makes the
  // plan undecidable, and BASELINE refuses it with the fix (docs/statistics.md section 3).
  double tolerancePower = 0.95;
  // ACCEPT needs the aggregate CI lower bound > 1 + acceptanceDelta ...
  double acceptanceDelta = 0.0;
  // ... and the aggregate point gain > minGain (the skill: "accept only if the mean gain > 1%").
  double minGain = 0.01;
  // The skill's near-noise rule: a gain below nearNoiseGain is accepted only once at least
  // blocksPerLook + nearNoiseRemeasures blocks are in (in practice: a second look, from the same
  // maxLooks budget, so the Pocock levels still bound the error).
  double nearNoiseGain = 0.02;
  int nearNoiseRemeasures = 3;
  // No longer used by the gate: a pooled "confirmation" look adds nothing the Pocock-level CI does
  // not already require; implausible large wins go to the plausibility audit (docs/statistics.md).
  double largeWin = 0.05;
  // The skill's chain integrity: the candidate's absolute aggregate must not fall more than 1%
  // below the recorded best (a NOTE by default: interleaved pairs already compare like with like,
  // a drop across sessions is more often the machine than the kernel).
  double chainDrop = 0.01;
  bool chainDropIsFatal = false;
  // Sampling plan: every look adds blocksPerLook fresh blocks to the same series, at most maxLooks
  // looks; every look is tested at the Pocock per-look level for maxLooks looks, so the error over
  // all looks stays at familyWiseAlpha (per-shape) and 1 - aggregateConfidence (aggregate).
  int blocksPerLook = 8;
  int maxLooks = 3;
  // Floor on every standard error (log scale): event-timer resolution and value quantisation make
  // a zero spread an artefact, not a certainty (measurement-review item 6). 0.0005 = 0.05%.
  double seFloor = 0.0005;
  // BASELINE harness check (checkHarness): power of the MDE, the MDE the blocks per look must
  // reach, and the most blocks per look kopt will run before calling the harness too noisy.
  double mdePower = 0.95;
  double targetMde = 0.02;
  int maxBlocks = 32;
  // |A/A bias| must be <= max(harnessBiasFloor, z SE), z Bonferroni over the shapes at
  // familyWiseAlpha (one shape: 1.96); a bias alarm is confirmed on fresh sessions before BASELINE
  // refuses (engine_baseline.cpp). The between-process sd of the per-process
  // A/A means must be <= harnessBetweenRatio x the within-process SE.
  double harnessBiasFloor = 0.0025;
  double harnessBetweenRatio = 1.5;
  // Worker sessions of the BASELINE A/A (gate.aa_sessions). Every verdict also holds under the
  // model in which a worker session, not a block, is the unit (ShapeNoise::processSd with
  // aaSessions - 1 degrees of freedom): more sessions narrow every interval of a shape whose
  // sessions disagree, at the price of one worker session of the baseline each.
  int aaSessions = 3;
  // BASELINE adds A/A sessions, up to this many in all, when a shape is undecidable with
  // aaSessions but would be with more (ShapeHarness::sessionsToDecide): the baseline is paid once,
  // every round pays for an undecidable plan. Beyond it the BASELINE refuses with the fix.
  int maxAaSessions = 8;
  // Older names the engine still reads: pairs (= blocks) per VALIDATE and per REMEASURE, and the
  // cap. Kept equal to blocksPerLook and blocksPerLook * maxLooks; the gate stops at whichever of
  // maxLooks and maxPairs comes first.
  int defaultPairs = 8;
  int remeasurePairs = 8;
  int maxPairs = 24;
  int calibrationPairs = 8;  // blocks per A/A worker session (the simulators' A/A)
  int minPairs = 3;  // below this no verdict is possible (REMEASURE)
  // Per-shape reasons of one code listed one by one before the rest are summed up in one reason
  // ("... and 480 more shapes"); the per-shape verdicts always list every shape.
  int maxReasonsPerCode = 25;
  // Aggregate bootstrap: resamples and the fixed seed that makes every verdict reproducible.
  int bootstrapResamples = 10000;
  std::uint64_t seed = 0x6b6f7074;  // "kopt"
};

// Per-block (or per-run) throughput summaries of one shape, paired by index: best[i] and
// candidate[i] were measured in the same block. Higher is better (convert times with 1/t before).
// A lost block is a NaN placeholder in either vector, never a gap: index i is block i in every
// shape, so the aggregate's joint resampling never mixes blocks. Per-shape statistics skip such
// indices; the aggregate uses only the indices finite in every shape.
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
  double q975 = 0.0;        // empirical aaQuantile of |log ratio| (reported only)
  // The practical threshold recorded with the calibration: the policy margin (clamped). Verdicts
  // take delta from the policy, so a ledger's older noise-derived delta is never used again.
  double delta = 0.0;
  // The sd of one A/A worker session's mean log ratio (over processDf + 1 sessions), for every
  // shape (the process-means fallback or not). Every verdict's interval is at least the t
  // interval of this sd divided by the square root of the round's sessions
  // (Calibration::forSessions), with processDf degrees of freedom: blocks from one process cannot
  // be more certain than processes disagree, and a t pivot on the sessions' own sd keeps its level
  // whatever the process effect. 0 with fewer than 2 sessions. Calibrations written before
  // processDf existed (processDf 0) hold an upper confidence bound here, used as a plain floor.
  double processSd = 0.0;
  int processDf = 0;
  // The slowdown (relative) this shape must be shown not to exceed for a candidate to be
  // accepted (non-inferiority at the TOST level): fixed at BASELINE from its precision
  // (GatePolicy::tolerancePower), between the margin and regressionTolerance. 0 in calibrations
  // written before it existed: the margin is used.
  double tolerance = 0.0;
};

struct Calibration {
  std::vector<ShapeNoise> shapes;
  const ShapeNoise* find(const std::string& label) const;
  // The same calibration with every processSd divided by sqrt(sessions): the session model's SE of a
  // measurement made of that many independent worker sessions.
  Calibration forSessions(int sessions) const;
};

// The A/A's noise per shape (sd and q975 of the log ratios, for the records) and delta = the
// policy margin clamped to [deltaFloor, regressionTolerance] (no longer derived from the noise).
Calibration calibrateAa(const std::vector<PairedRuns>& aa, const GatePolicy& policy);

// ---- BASELINE harness check: is a block a valid unit, is the harness quiet enough? ----

// What a shape's statistics treat as one observation: a block, or (when the A/A shows a
// process-level variance component) the mean of one worker session's blocks.
enum class ReplicationUnit { Block, ProcessMean };
const char* toString(ReplicationUnit unit);  // "block" | "process_mean"

struct ShapeHarness {
  std::string label;
  std::size_t blocks = 0;     // valid A/A blocks over all processes
  std::size_t processes = 0;  // processes with at least 2 valid blocks
  // A/A bias: the mean log ratio over all blocks, its SE (the blocks', at least the session means'),
  // and the limit max(harnessBiasFloor, z SE) with z two-sided at familyWiseAlpha / k shapes.
  double bias = 0.0, biasSe = 0.0, biasLimit = 0.0;
  bool biasOk = false;
  // Process check: sd of the per-process means against the mean over processes of sd/sqrt(n).
  double withinSe = 0.0, betweenSd = 0.0;
  bool processOk = false;
  ReplicationUnit unit = ReplicationUnit::Block;
  // Per-unit noise used for sizing: the pooled within-process sd per block (unit Block), or the
  // sd of the per-process means (unit ProcessMean).
  double sdPerUnit = 0.0;
  // Units per look so that the MDE (mdePower, Holm's first step at the Pocock level over the k
  // shapes, delta = margin) is <= targetMde: blocks for unit Block, worker sessions for unit
  // ProcessMean; maxBlocks when the target is not reachable.
  int unitsNeeded = 0;
  bool reachable = false;
  double mdeAtPlan = 0.0;    // MDE at policy.blocksPerLook units (the session model counted)
  double mdeAtNeeded = 0.0;  // MDE at unitsNeeded units
  // One session's sd (ShapeNoise::processSd) and what the plan can decide: the tolerance
  // this shape is judged at, and the looks an unchanged shape needs to be shown within it with
  // tolerancePower (0 when no look up to maxLooks can: undecidable).
  double floorPerLook = 0.0;
  double tolerance = 0.0;
  int looksNeeded = 0;
  bool decidable = false;
  // For an undecidable shape, what would make it decidable (0: nothing within range): the A/A
  // sessions (gate.aa_sessions, at most 12; the same session sd, more degrees of freedom), the
  // looks (gate.max_looks, at most 10), and the
  // regression tolerance (gate.regression_pct) at the manifest's sessions and looks.
  int sessionsToDecide = 0;
  int looksToDecide = 0;
  double toleranceToDecide = 0.0;
  std::string message;       // one line: what was found and what it means
};

struct HarnessCheck {
  std::vector<ShapeHarness> shapes;
  bool ok = false;         // every shape unbiased and decidable within its tolerance in maxLooks looks
  int blocksPerLook = 0;   // what the engine should run per look: max(policy, every Block shape's need), even
  int looksNeeded = 0;     // the most looks an unchanged shape needs (a neutral round's expected looks)
  std::vector<std::string> problems;  // one line per failing shape, with the fix ("fix the harness: ...")
  Calibration calibration;  // per shape: pooled sd per block, delta = margin (for the ledger)
  // True when the check failed only on A/A bias (every shape decidable, checked over >= 2
  // sessions): the one failure a chance reading can cause, so BASELINE confirms it on fresh sessions.
  bool failedOnlyOnBias() const;
  // The A/A sessions in all that would make every undecidable shape decidable (whatever else
  // failed: more sessions also re-check a bias); 12, the most, for a shape that no count would
  // decide at its current estimate (from few sessions it may be high by chance); 0 when every
  // shape is decidable or one was measured in fewer than 2 sessions.
  int sessionsToDecide() const;
};

// What the plan can decide for one shape: `sdPerBlock` (log ratio), `floorPerLook` (one session's
// sd, ShapeNoise::processSd, with `floorDf` degrees of freedom), `blocksPerLook` blocks a look, at
// most policy.maxLooks looks. The tolerance is (t_{1-a} + t_{tolerancePower}) x the first look's
// SE (the wider of the blocks' and the sessions' model), a the one-sided TOST level, clamped to
// [margin, regressionTolerance]; looksNeeded the first look at which an
// unchanged shape is shown within it with that power, 0 if none is (undecidable).
// toleranceAtLastLook: the tolerance the last look could show (what gate.regression_pct would
// have to be).
struct ShapePlan {
  double tolerance = 0.0;
  int looksNeeded = 0;
  double toleranceAtLastLook = 0.0;
};
ShapePlan planShape(double sdPerBlock, double floorPerLook, int floorDf, int blocksPerLook, const GatePolicy& policy);

// The one-sided level of every look's equivalence and non-inferiority interval: Pocock's per-look
// level for 2 x familyWiseAlpha over maxLooks looks, halved (2.3% for 3 looks at 0.05).
double toleranceLevel(const GatePolicy& policy);

// `perProcess[p]` is the A/A of worker session p (each shape's blocks as pairs, NaN placeholders
// allowed). Three sessions of blocksPerLook blocks is the plan (docs/statistics.md).
HarnessCheck checkHarness(const std::vector<std::vector<PairedRuns>>& perProcess, const GatePolicy& policy);

// ---- Per-shape verdicts ----

struct ShapeVerdict {
  std::string label;
  Verdict verdict = Verdict::Inconclusive;  // Improved, Same, Regressed or Inconclusive: the gate's four
  std::size_t pairs = 0;
  double ratio = 1.0;                  // candidate / best, exp(mean log ratio)
  double ciLow = 0.0, ciHigh = 0.0;    // simultaneous CI of the ratio (level 1 - alpha/k)
  double tostLow = 0.0, tostHigh = 0.0;  // equivalence interval of the ratio (level 1 - 2 alpha)
  double delta = 0.0;                  // practical threshold (relative, e.g. 0.012 = 1.2%)
  // The shape's non-inferiority tolerance (ShapeNoise::tolerance, at least delta) and whether the
  // equivalence interval's lower end is above -tolerance: the candidate is shown not to have
  // slowed this shape by more than its tolerance. ACCEPT needs it on every shape.
  double tolerance = 0.0;
  bool withinTolerance = false;
  double pRegressed = 1.0;             // Holm-adjusted p of "slower than no change" (1 when faster)
  double pImproved = 1.0;              // Holm-adjusted p of "faster than no change" (1 when slower)
  double mde = 0.0;                    // relative slowdown flagged REGRESSED with policy.mdePower
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
// per-shape equivalence test (docs/statistics.md). delta = policy.margin for every shape (the
// calibration argument is kept for the callers; its stored delta is not used). Every level is the
// Pocock per-look level for policy.maxLooks looks; every SE is at least policy.seFloor.
std::vector<ShapeVerdict> compareShapes(const std::vector<PairedRuns>& runs, const Calibration& calibration,
                                        const GatePolicy& policy);

// ---- Aggregate: geomean of per-shape ratios ----

struct AggregateEstimate {
  double ratio = 1.0;  // geomean over shapes of the per-shape ratios
  double ciLow = 0.0, ciHigh = 0.0;
  std::size_t pairs = 0;  // pairs common to all shapes (resampled jointly)
};

// Paired bootstrap over pair indices finite in every shape (all shapes resampled together,
// keeping their correlation), widened to at least the t-interval of the per-pair geomean log
// ratio (se floored at policy.seFloor): at 5-8 pairs the percentile bootstrap alone covers less
// than its nominal level. The level is Pocock's per-look level for aggregateConfidence over
// policy.maxLooks looks.
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
  // Which look this is, 1-based (each look appends blocksPerLook fresh blocks). 0: derived as
  // remeasureBatches + 1. REMEASURE is only returned while look < maxLooks.
  int look = 0;
  // Chain integrity (optional): the recorded best aggregate and the candidate's, same metric.
  std::optional<double> recordedBestAggregate;
  std::optional<double> candidateAggregate;
};

struct GateResult {
  Decision decision = Decision::Rollback;
  std::vector<Reason> reasons;  // every reason that applies, the deciding one first
  std::vector<ShapeVerdict> shapes;
  std::optional<AggregateEstimate> aggregate;
  int pairsToAdd = 0;           // REMEASURE: how many fresh blocks the engine appends (blocksPerLook)
  int look = 1;                 // the look this verdict was made at
};

GateResult evaluateGate(const GateInput& input, const GatePolicy& policy);

// ---- Helpers (also used by the tests and docs) ----

// Student t quantile and upper tail; df > 0.
double studentTQuantile(double p, double df);
double studentTUpperTail(double t, double df);
double normalQuantile(double p);
// Holm step-down adjusted p-values (same order as the input).
std::vector<double> holmAdjust(const std::vector<double>& pValues);
// Pocock's group-sequential boundary: the constant c such that K looks at equally spaced
// information, each rejecting when |Z_j| > c, reject a true null at some look with probability
// `alpha` (two-sided). Computed by numerical integration (recursive densities), cached per
// (looks, alpha). pocockCritical(1, a) = z_{1 - a/2}; K = 3, a = 0.05: 2.289.
double pocockCritical(int looks, double alpha);
// The per-look two-sided level 2 (1 - Phi(c)): 0.0221 for 3 looks at 0.05; alpha for one look.
double pocockNominalAlpha(int looks, double alpha);
// The slowdown (log scale) flagged REGRESSED with probability `power`, for n pairs of per-pair sd
// `sdLogRatio`, a two-sided per-test level `alpha` (alpha/k: Holm's first step) and the practical
// threshold `delta` (log scale) the estimate must also pass:
//   max(delta, t_{1-alpha/2, n-1} * se) + t_{power, n-1} * se,  se = sd / sqrt(n).
double minimumDetectableEffect(double sdLogRatio, std::size_t pairs, double alpha, double delta, double power = 0.8);
// The same with se = max(sd / sqrt(n), seFloor).
double minimumDetectableEffect(double sdLogRatio, std::size_t pairs, double alpha, double delta, double power,
                               double seFloor);

}  // namespace kopt::measure
