#pragma once
// Rule 11's closing audit (loop contract section 6): re-attribute the campaign's benchmark gain
// to what will show up in a real training step. S_real: kernel-internal, layout, fusion and
// same-call data-flow gains (K1-K4), which transfer. W_real: weight-cache gains (W1), which
// transfer only up to quant_time(weight)/step_time. R_real: anything else (W2/W3 caches, a round
// with no declared bucket, a round its own transfer check rejected), which must be 0. The
// inflation gap is what the benchmark shows beyond the real estimate.
#include <string>
#include <vector>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report {

enum class AuditClass { SReal, WReal, RReal };
const char* toString(AuditClass cls);  // "S_real", "W_real", "R_real"

struct AuditRow {
  int round = 0;
  std::optional<Rule11Bucket> bucket;
  AuditClass cls = AuditClass::RReal;
  double benchmarkGainPct = kNaN;  // this round's aggregate against the best before it
  double realGainPct = kNaN;       // what transfers: the benchmark gain, bounded for W1, 0 for R
  bool boundKnown = true;          // W1 without an estimated bound: counted in full, flagged
  std::string why;                 // one line: why this class
};

struct RealTrainingAudit {
  std::vector<AuditRow> rows;  // one per accepted round with a finite gain
  // Gains combine multiplicatively: (1+a)(1+b)-1, so the classes add up to best/baseline.
  double benchmarkGainPct = 0;  // all accepted rounds together
  double sRealPct = 0;
  double wBenchmarkPct = 0;  // W1 rounds as the benchmark saw them
  double wRealPct = 0;       // W1 rounds after the bound
  double rRealPct = 0;       // must be 0
  double realGainPct = 0;    // S_real and W_real together
  double inflationGapPct = 0;  // benchmarkGainPct - realGainPct, percentage points
  TransferDecision verdict = TransferDecision::None;  // None: nothing accepted, nothing to audit
  std::string verdictReason;
};

RealTrainingAudit auditRealTraining(const CampaignHistory& history);

// (1+a/100)(1+b/100)-1, in percent.
double composePct(double aPct, double bPct);

}  // namespace kopt::campaign::report
