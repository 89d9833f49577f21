#pragma once
// The verdict of validate_round and how each stage shapes it: a failed build or test run rolls
// back, the gate's decision (or the schema / shape-set drift that makes a gate meaningless) is
// taken over, and the plausibility audit turns an ACCEPT with numbers beyond what the hardware or
// one honest change can do into AUDIT (physics before statistics).
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine_types.h"
#include "campaign/measurement.h"
#include "campaign/round_vocabulary.h"
#include "measure/plausibility.h"
#include "measure/statistics.h"

namespace kopt::campaign {

struct ValidationVerdict {
  std::optional<RoundVerdict> decision;  // none while undecided
  std::vector<GateReason> reasons;

  bool decided() const { return decision.has_value(); }
  bool accepting() const { return decision && isAccepting(*decision); }
  // ROLLBACK, with `code` as the deciding (first) reason.
  void rollBack(const std::string& code, const std::string& message);
};

// Schema or shape-set drift is a hard ROLLBACK naming each difference; no gate reason applies.
ValidationVerdict driftVerdict(const AssembledRuns& assembled);

// The gate's decision with its reasons, then one run_problem per problem of the runs. A gate
// still asking for pairs at the cap is a ROLLBACK: not shown better after `pairs` pairs.
ValidationVerdict gateVerdict(const measure::GateResult& gate, const std::vector<std::string>& runProblems,
                              std::size_t pairs);

// One arm of the result rows as the plausibility check scores it (rows without a number of that
// arm: "not measured"; the geomean over the shapes that count as PASS).
measure::ScoreVector scoresOf(const std::vector<ShapeRow>& rows, const measure::PrimaryMetric& metric, bool candidate);

struct PlausibilityAudit {
  std::vector<std::string> flags;  // "label: flag (message)", one per flag
  bool needsAudit = false;
};
// The candidate's rows against the best's and against `peak` (the metric's unit; nullopt: no
// speed-of-light check).
PlausibilityAudit auditPlausibility(const std::vector<ShapeRow>& rows, const measure::PrimaryMetric& metric,
                                    std::optional<double> peak);
// An audit that fired turns the verdict into AUDIT, the audit's reason first.
void applyAudit(ValidationVerdict& verdict, const PlausibilityAudit& audit);

// The reasons' messages joined with "; " (the record's decision reason).
std::string reasonText(const std::vector<GateReason>& reasons);

}  // namespace kopt::campaign
