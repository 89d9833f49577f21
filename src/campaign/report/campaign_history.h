#pragma once
// The plain input of the report renderers: what happened in a campaign, already read from its
// records by the engine. Keeping the renderers on this struct (no ledger, no files, no JSON)
// means the report can be tested on hand-built histories, including the awkward ones (no rounds,
// one round, NaN aggregates after a correctness failure).
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "campaign/round_vocabulary.h"
#include "measure/verdict.h"

namespace kopt::campaign::report {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One vocabulary with the records and the tools (campaign/round_vocabulary.h).
using campaign::isAccepted;
using campaign::RoundStatus;
using campaign::Rule11Bucket;
using campaign::bucketCell;
using campaign::toString;

using measure::Verdict;            // measure/verdict.h: the gate's word, in the records too
using campaign::TransferDecision;  // round_vocabulary.h

struct ShapeResult {
  std::string label;
  double value = kNaN;  // the primary metric of this shape in this round, in the metric's unit
  // Better-direction ratio against the baseline round: 1.05 = 5% better, whatever the metric's
  // direction (for a time metric it is baseline/value). NaN when not measured or FAIL.
  double speedupVsBaseline = kNaN;
  Verdict verdict = Verdict::NotMeasured;
  // Against the best the round was compared with, percent, better-direction (+5 = 5% better),
  // and the gate's confidence interval of it; NaN where the round has none (the baseline).
  double gainVsBestPct = kNaN, ciLowPct = kNaN, ciHighPct = kNaN;
};

// The hypothesis' expected effect, declared in begin_round before any number existed.
struct Prediction {
  std::string metric;         // e.g. "Combined Step TFLOPS"
  bool expectImprovement = true;
  double expectedPct = kNaN;  // size of the expected change, percent (positive)
};

// The round summary's "Real-training transfer check" (loop contract section 6, rule 11).
struct TransferCheck {
  std::optional<Rule11Bucket> bucket;  // none: the round declared no bucket (the baseline)
  // W1 only: the most the gain can be worth in a real step, quant_time(weight)/step_time, in
  // percent. NaN: not estimated (the audit then counts the whole W1 gain as unbounded).
  double realGainBoundPct = kNaN;
  TransferDecision decision = TransferDecision::None;
  std::string note;
};

struct RoundRecord {
  int number = 0;  // 1 = baseline; numbers only grow, rolled-back rounds keep theirs
  RoundStatus status = RoundStatus::RolledBack;
  std::string description;  // the single change, one line
  double aggregate = kNaN;  // primary-metric aggregate (geomean over PASS shapes); NaN: none valid
  // The band around the current best inside which a candidate is indistinguishable from it,
  // from the A/A calibration (absolute values in the metric's unit). NaN when not known.
  double noiseLo = kNaN;
  double noiseHi = kNaN;
  std::vector<ShapeResult> shapes;
  std::optional<Rule11Bucket> bucket;  // none: the round declared no bucket (the baseline)
  std::string decisionReason;
  std::optional<Prediction> prediction;
  // Observed change of the aggregate against the current best in this round, percent, as the
  // gate measured it (interleaved). NaN: derived from the aggregates instead.
  double observedPct = kNaN;
  std::optional<TransferCheck> transfer;
};

struct CampaignHistory {
  std::string campaignName;
  std::string op;
  std::string backend;
  std::string gpu;
  std::string deviceName;      // e.g. "AMD Instinct MI300X"; empty when unknown
  std::string metricName;      // e.g. "Combined Step TFLOPS"
  std::string metricUnit;      // e.g. "TFLOPS"
  bool higherIsBetter = true;  // false for time metrics
  std::optional<double> devicePeak;  // in the metric's unit, for "% of peak"
  std::string generatedAt;     // supplied by the caller: rendering reads no clock

  std::vector<RoundRecord> rounds;  // in round order; rounds[0] is the baseline when present

  // Half-width of the aggregate's A/A noise band, percent, from the baseline's calibration. A
  // round without its own noiseLo/noiseHi gets the band best-before-the-round x (1 +- this).
  double aggregateNoisePct = kNaN;

  // Final acceptance (full bench on all target shapes + the full test suite), when it ran.
  std::optional<double> finalAggregate;
  std::vector<ShapeResult> finalShapes;
  std::string finalTestSummary;   // e.g. "pytest tests/: 412 passed"
  std::string terminationReason;  // e.g. "T3 max_iterations reached (12)"

  std::vector<std::string> nextSteps;  // the agent's directions to try next, best first
};

// Queries shared by the renderers (pure functions of the history).
const RoundRecord* baselineRound(const CampaignHistory& history);
// The last accepted round, or the baseline when nothing was accepted; nullptr without rounds.
const RoundRecord* bestRound(const CampaignHistory& history);
// The noise band of rounds[index]: its own when set, else derived from aggregateNoisePct around
// the best aggregate before it (the baseline round: around itself). NaNs when neither is known.
struct NoiseBand {
  double lo = kNaN;
  double hi = kNaN;
  bool known() const { return std::isfinite(lo) && std::isfinite(hi); }
};
NoiseBand noiseBandOf(const CampaignHistory& history, size_t index);
// Better-direction gain of `value` against `reference`, percent (+5 = 5% better). NaN when either
// is not a positive finite number.
double gainPct(double value, double reference, bool higherIsBetter);

}  // namespace kopt::campaign::report
