#include "campaign/report/real_training_audit.h"

#include <algorithm>
#include <cmath>

#include "campaign/report/svg_support.h"

namespace kopt::campaign::report {

const char* toString(AuditClass cls) {
  switch (cls) {
    case AuditClass::SReal: return "S_real";
    case AuditClass::WReal: return "W_real";
    case AuditClass::RReal: return "R_real";
  }
  return "?";
}

double composePct(double aPct, double bPct) { return ((1 + aPct / 100) * (1 + bPct / 100) - 1) * 100; }

namespace {

// A gain this small is rounding noise in the chained ratios, not a real R_real.
constexpr double kZeroTolerancePct = 1e-9;

AuditRow classify(const RoundRecord& round, double gain) {
  AuditRow row;
  row.round = round.number;
  row.benchmarkGainPct = gain;
  std::optional<Rule11Bucket> bucket = round.bucket;
  if (round.transfer && round.transfer->bucket) bucket = round.transfer->bucket;
  row.bucket = bucket;

  if (round.transfer && round.transfer->decision == TransferDecision::RejectAsOverfit) {
    row.cls = AuditClass::RReal;
    row.realGainPct = 0;
    row.why = "its own transfer check says REJECT-as-overfit";
    return row;
  }
  if (!bucket) {
    row.cls = AuditClass::RReal;
    row.realGainPct = 0;
    row.why = "no Rule-11 bucket declared: the gain cannot be attributed";
    return row;
  }
  switch (*bucket) {
    case Rule11Bucket::K1:
    case Rule11Bucket::K2:
    case Rule11Bucket::K3:
    case Rule11Bucket::K4:
      row.cls = AuditClass::SReal;
      row.realGainPct = gain;
      row.why = "kernel-side change (K1-K4) transfers to a real step";
      return row;
    case Rule11Bucket::W1: {
      row.cls = AuditClass::WReal;
      double bound = round.transfer ? round.transfer->realGainBoundPct : kNaN;
      if (std::isfinite(bound)) {
        row.realGainPct = std::min(gain, std::max(0.0, bound));
        row.why = "weight cache (W1), bounded by quant_time/step_time = " + svg::fixed(bound, 3) + "%";
      } else {
        row.realGainPct = gain;
        row.boundKnown = false;
        row.why = "weight cache (W1) without an estimated bound: counted in full, verify quant_time/step_time";
      }
      return row;
    }
    case Rule11Bucket::W2:
    case Rule11Bucket::W3:
      row.cls = AuditClass::RReal;
      row.realGainPct = 0;
      row.why = std::string("forbidden cache (") + toString(*bucket) + ") does not transfer";
      return row;
  }
  row.cls = AuditClass::RReal;
  row.realGainPct = 0;
  row.why = "unknown Rule-11 bucket";
  return row;
}

}  // namespace

RealTrainingAudit auditRealTraining(const CampaignHistory& history) {
  RealTrainingAudit audit;
  const RoundRecord* base = baselineRound(history);
  double best = base ? base->aggregate : kNaN;
  bool anyUnbounded = false;

  for (const auto& round : history.rounds) {
    if (!isAccepted(round.status)) continue;
    double gain = gainPct(round.aggregate, best, history.higherIsBetter);
    if (!std::isfinite(gain)) {
      // An accepted round without a usable aggregate (or no baseline): it still moves the chain
      // when it has a value, but there is no gain to attribute.
      if (std::isfinite(round.aggregate) && round.aggregate > 0) best = round.aggregate;
      continue;
    }
    best = round.aggregate;
    AuditRow row = classify(round, gain);
    audit.benchmarkGainPct = composePct(audit.benchmarkGainPct, gain);
    switch (row.cls) {
      case AuditClass::SReal: audit.sRealPct = composePct(audit.sRealPct, gain); break;
      case AuditClass::WReal:
        audit.wBenchmarkPct = composePct(audit.wBenchmarkPct, gain);
        audit.wRealPct = composePct(audit.wRealPct, row.realGainPct);
        anyUnbounded = anyUnbounded || !row.boundKnown;
        break;
      case AuditClass::RReal: audit.rRealPct = composePct(audit.rRealPct, gain); break;
    }
    audit.rows.push_back(std::move(row));
  }

  audit.realGainPct = composePct(audit.sRealPct, audit.wRealPct);
  audit.inflationGapPct = audit.benchmarkGainPct - audit.realGainPct;
  if (std::fabs(audit.inflationGapPct) < kZeroTolerancePct) audit.inflationGapPct = 0;

  bool rNonZero = std::any_of(audit.rows.begin(), audit.rows.end(), [](const AuditRow& row) {
    return row.cls == AuditClass::RReal && std::fabs(row.benchmarkGainPct) > kZeroTolerancePct;
  });
  if (audit.rows.empty()) {
    audit.verdict = TransferDecision::None;
    audit.verdictReason = "no accepted round: there is no gain to audit";
  } else if (rNonZero) {
    audit.verdict = TransferDecision::RejectAsOverfit;
    audit.verdictReason = "R_real is " + svg::signedPercent(audit.rRealPct, 3) +
                          ", it must be 0: part of the benchmark gain will not exist in a real training step";
  } else if (audit.inflationGapPct > kZeroTolerancePct || anyUnbounded) {
    audit.verdict = TransferDecision::AcceptWithAsterisk;
    audit.verdictReason = anyUnbounded ? "a W1 gain has no estimated bound; the real gain may be smaller"
                                       : "W1 weight-cache gains are bounded in a real step; the inflation gap is " +
                                             svg::fixed(audit.inflationGapPct, 3) + " percentage points";
  } else {
    audit.verdict = TransferDecision::AcceptAsReal;
    audit.verdictReason = "every accepted gain is kernel-side (K1-K4) or fully within its W1 bound";
  }
  return audit;
}

}  // namespace kopt::campaign::report
