// The gate: correctness first, then the PASS set, then per-shape verdicts, then the aggregate,
// then the skill's readable rules (near-noise, large wins, chain integrity). The first rule that
// decides puts its reason first; every other applicable reason follows, so the record explains
// the whole picture, not just the deciding line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "measure/statistics.h"

namespace kopt::measure {

namespace {

std::string percent(double relative) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * relative);
  return buf;
}

}  // namespace

const char* toString(Decision decision) {
  switch (decision) {
    case Decision::Accept: return "ACCEPT";
    case Decision::AcceptWithNote: return "ACCEPT_WITH_NOTE";
    case Decision::Rollback: return "ROLLBACK";
    case Decision::Remeasure: return "REMEASURE";
  }
  return "ROLLBACK";
}

const char* toString(ReasonCode code) {
  switch (code) {
    case ReasonCode::CheckNotPass: return "check_not_pass";
    case ReasonCode::PassSetShrank: return "pass_set_shrank";
    case ReasonCode::MissingShape: return "missing_shape";
    case ReasonCode::TooFewPairs: return "too_few_pairs";
    case ReasonCode::ShapeRegressed: return "shape_regressed";
    case ReasonCode::ShapeInconclusive: return "shape_inconclusive";
    case ReasonCode::NotShownBetter: return "not_shown_better";
    case ReasonCode::AggregateStraddles: return "aggregate_straddles";
    case ReasonCode::AggregateNotBetter: return "aggregate_not_better";
    case ReasonCode::GainBelowMinimum: return "gain_below_minimum";
    case ReasonCode::NearNoiseNeedsPairs: return "near_noise_needs_pairs";
    case ReasonCode::ConfirmLargeWin: return "confirm_large_win";
    case ReasonCode::ShapeSlowedWithinNoise: return "shape_slowed_within_noise";
    case ReasonCode::ShapeBlind: return "shape_blind";
    case ReasonCode::ChainDrop: return "chain_drop";
    case ReasonCode::Improved: return "improved";
  }
  return "unknown";
}

GateResult evaluateGate(const GateInput& input, const GatePolicy& policy) {
  GateResult result;
  std::vector<Reason> fatal;  // ROLLBACK reasons
  std::vector<Reason> again;  // REMEASURE reasons
  std::vector<Reason> notes;  // never decide, always reported

  // 1. Correctness is a hard gate: any candidate row that is not PASS.
  std::unordered_map<std::string, Check> candidateCheck;
  for (const auto& [label, check] : input.candidateChecks) {
    auto [it, inserted] = candidateCheck.emplace(label, check);
    if (!inserted && check != Check::Pass) it->second = check;  // the worst over repeated entries
  }
  std::unordered_set<std::string> reported;
  for (const auto& [label, check] : input.candidateChecks) {
    const Check worst = candidateCheck[label];
    if (worst != Check::Pass && reported.insert(label).second)
      fatal.push_back({ReasonCode::CheckNotPass, label, std::string("candidate is ") + toString(worst) + " on " + label});
  }

  // 2. The PASS set may not shrink: a FAIL counts as a miss, not a dropped term of the geomean.
  for (const auto& label : input.bestPassLabels) {
    auto it = candidateCheck.find(label);
    if (it == candidateCheck.end())
      fatal.push_back({ReasonCode::PassSetShrank, label,
                       label + " is PASS in the current best and has no row in the candidate (a miss, not a dropped term)"});
    else if (it->second != Check::Pass)
      fatal.push_back({ReasonCode::PassSetShrank, label,
                       label + " is PASS in the current best and " + toString(it->second) +
                           " in the candidate (a FAIL counts as a miss, not a dropped term)"});
  }

  // 3. Every shape PASS in the best needs paired runs to be judged.
  std::unordered_set<std::string> withRuns;
  for (const auto& r : input.runs) withRuns.insert(r.label);
  for (const auto& label : input.bestPassLabels)
    if (!withRuns.count(label) && candidateCheck.count(label) && candidateCheck[label] == Check::Pass)
      fatal.push_back({ReasonCode::MissingShape, label, label + " has no paired runs; it cannot be shown not to regress"});

  // 4. Per-shape verdicts and the aggregate (computed even when rejecting: the record shows them).
  result.shapes = compareShapes(input.runs, input.calibration, policy);
  if (!input.runs.empty()) result.aggregate = aggregateRatio(input.runs, policy);

  std::size_t pairs = std::numeric_limits<std::size_t>::max();
  for (const auto& v : result.shapes) pairs = std::min(pairs, v.pairs);
  if (result.shapes.empty()) pairs = 0;
  const std::size_t maxPairs = static_cast<std::size_t>(std::max(policy.maxPairs, policy.minPairs));
  const bool atCap = pairs >= maxPairs;
  auto room = [&](int wanted) {
    const int left = static_cast<int>(maxPairs) - static_cast<int>(pairs);
    return std::max(0, std::min(wanted, left));
  };

  for (const auto& v : result.shapes) {
    if (v.verdict == Verdict::Regressed) fatal.push_back({ReasonCode::ShapeRegressed, v.label, v.label + ": " + v.note});
    if (v.slowedWithinDelta) notes.push_back({ReasonCode::ShapeSlowedWithinNoise, v.label, v.label + ": " + v.note});
    if (v.pairs >= static_cast<std::size_t>(std::max(2, policy.minPairs)) && v.mde > policy.regressionTolerance)
      notes.push_back({ReasonCode::ShapeBlind, v.label,
                       v.label + ": minimum detectable slowdown " + percent(v.mde) + " exceeds the tolerance " +
                           percent(policy.regressionTolerance) + " at " + std::to_string(v.pairs) +
                           " pairs; add pairs or reduce the noise"});
  }

  const bool tooFew = input.runs.empty() || pairs < static_cast<std::size_t>(std::max(2, policy.minPairs));
  if (fatal.empty() && tooFew)
    again.push_back({ReasonCode::TooFewPairs, "",
                     std::to_string(input.runs.empty() ? 0 : pairs) + " interleaved pairs; at least " +
                         std::to_string(std::max(2, policy.minPairs)) + " are needed for a verdict"});

  // 5. INCONCLUSIVE shapes: measure again, up to the cap; then "not shown better".
  if (fatal.empty() && again.empty()) {
    for (const auto& v : result.shapes) {
      if (v.verdict != Verdict::Inconclusive) continue;
      if (atCap)
        fatal.push_back({ReasonCode::NotShownBetter, v.label,
                         v.label + " still INCONCLUSIVE after " + std::to_string(v.pairs) + " pairs: " + v.note});
      else
        again.push_back({ReasonCode::ShapeInconclusive, v.label, v.label + ": " + v.note});
    }
  }

  // 6. The aggregate: its CI must clear 1 + acceptanceDelta, and the gain must be worth having.
  bool improvedReason = false;
  if (fatal.empty() && again.empty() && result.aggregate) {
    const AggregateEstimate& agg = *result.aggregate;
    const double bar = 1.0 + policy.acceptanceDelta;
    const std::string ci = "geomean ratio " + percent(agg.ratio - 1) + " (CI " + percent(agg.ciLow - 1) + " .. " +
                           percent(agg.ciHigh - 1) + ", " + std::to_string(agg.pairs) + " pairs)";
    if (agg.ciHigh <= bar) {
      fatal.push_back({ReasonCode::AggregateNotBetter, "", ci + " is not above " + percent(bar - 1)});
    } else if (agg.ciHigh <= 1.0 + policy.minGain || (agg.ciLow > bar && agg.ratio - 1.0 <= policy.minGain)) {
      fatal.push_back({ReasonCode::GainBelowMinimum, "", ci + ": gain below the minimum " + percent(policy.minGain)});
    } else if (agg.ciLow <= bar) {
      if (atCap) fatal.push_back({ReasonCode::NotShownBetter, "", ci + " still straddles " + percent(bar - 1) + " at the pair cap"});
      else again.push_back({ReasonCode::AggregateStraddles, "", ci + " straddles " + percent(bar - 1)});
    } else {
      const double gain = agg.ratio - 1.0;
      // The skill's near-noise rule, in pairs: a small gain is only believed after extra runs.
      const std::size_t nearNoisePairs = static_cast<std::size_t>(policy.defaultPairs + policy.nearNoiseRemeasures);
      std::vector<double> deltas;
      for (const auto& v : result.shapes) deltas.push_back(v.delta);
      std::nth_element(deltas.begin(), deltas.begin() + static_cast<std::ptrdiff_t>(deltas.size() / 2), deltas.end());
      const double medianDelta = deltas.empty() ? policy.deltaFloor : deltas[deltas.size() / 2];
      if (gain < policy.nearNoiseGain && pairs < nearNoisePairs && !atCap) {
        again.push_back({ReasonCode::NearNoiseNeedsPairs, "",
                         ci + ": a gain below " + percent(policy.nearNoiseGain) + " needs " +
                             std::to_string(nearNoisePairs) + " pairs before it is accepted"});
        result.pairsToAdd = room(static_cast<int>(nearNoisePairs - pairs));
      } else if (gain > std::max(policy.largeWin, 3.0 * medianDelta) && input.remeasureBatches == 0 && !atCap) {
        again.push_back({ReasonCode::ConfirmLargeWin, "",
                         ci + ": a large win is confirmed by one more batch of fresh-process pairs before ACCEPT"});
      } else {
        improvedReason = true;
      }
    }
  }

  // 7. Chain integrity against the recorded best (a note unless the policy makes it fatal).
  if (input.recordedBestAggregate && input.candidateAggregate && *input.recordedBestAggregate > 0 &&
      *input.candidateAggregate < *input.recordedBestAggregate * (1.0 - policy.chainDrop)) {
    Reason r{ReasonCode::ChainDrop, "",
             "candidate aggregate " + std::to_string(*input.candidateAggregate) + " is more than " +
                 percent(policy.chainDrop) + " below the recorded best " + std::to_string(*input.recordedBestAggregate)};
    if (policy.chainDropIsFatal) fatal.push_back(r);
    else notes.push_back(r);
  }

  if (!fatal.empty()) {
    result.decision = Decision::Rollback;
    result.pairsToAdd = 0;
    result.reasons = fatal;
    for (auto& r : again) result.reasons.push_back(r);
  } else if (!again.empty()) {
    result.decision = Decision::Remeasure;
    if (result.pairsToAdd == 0) {
      if (again.front().code == ReasonCode::TooFewPairs)
        result.pairsToAdd = std::max(0, policy.defaultPairs - static_cast<int>(input.runs.empty() ? 0 : pairs));
      else
        result.pairsToAdd = room(policy.remeasurePairs);
    }
    if (result.pairsToAdd == 0) result.pairsToAdd = 1;  // never ask to re-measure nothing
    result.reasons = again;
  } else if (improvedReason) {
    const AggregateEstimate& agg = *result.aggregate;
    result.decision = notes.empty() ? Decision::Accept : Decision::AcceptWithNote;
    result.reasons.push_back({ReasonCode::Improved, "",
                              "geomean ratio " + percent(agg.ratio - 1) + " (CI " + percent(agg.ciLow - 1) + " .. " +
                                  percent(agg.ciHigh - 1) + "), no shape REGRESSED, PASS set kept"});
  } else {
    // Nothing decided (no aggregate): never accept by default.
    result.decision = Decision::Rollback;
    result.reasons.push_back({ReasonCode::NotShownBetter, "", "no paired runs to judge the candidate on"});
  }
  for (auto& n : notes) result.reasons.push_back(n);
  return result;
}

}  // namespace kopt::measure
