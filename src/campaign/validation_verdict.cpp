#include "campaign/validation_verdict.h"

#include <cmath>

#include "campaign/result_rows.h"

namespace kopt::campaign {

void ValidationVerdict::rollBack(const std::string& code, const std::string& message) {
  decision = RoundVerdict::Rollback;
  reasons.insert(reasons.begin(), GateReason{code, "", message});
}

ValidationVerdict driftVerdict(const AssembledRuns& assembled) {
  ValidationVerdict v;
  for (const auto& p : assembled.problems) v.reasons.push_back({assembled.schemaDrift ? "schema_drift" : "shape_set_drift", "", p});
  v.decision = RoundVerdict::Rollback;
  return v;
}

ValidationVerdict gateVerdict(const measure::GateResult& gate, const std::vector<std::string>& runProblems,
                              std::size_t pairs) {
  ValidationVerdict v;
  v.reasons = detail::gateReasons(gate);
  for (const auto& p : runProblems) v.reasons.push_back({"run_problem", "", p});
  switch (gate.decision) {
    case measure::Decision::Accept: v.decision = RoundVerdict::Accept; break;
    case measure::Decision::AcceptWithNote: v.decision = RoundVerdict::AcceptWithNote; break;
    case measure::Decision::Rollback: v.decision = RoundVerdict::Rollback; break;
    case measure::Decision::Remeasure:
      v.rollBack("pair_cap_reached",
                 "still inconclusive after " + std::to_string(pairs) + " interleaved pairs (the cap): not shown better");
      break;
  }
  return v;
}

measure::ScoreVector scoresOf(const std::vector<ShapeRow>& rows, const measure::PrimaryMetric& metric, bool candidate) {
  measure::ScoreVector v;
  v.metric = metric;
  std::vector<double> pass;
  for (const auto& r : rows) {
    measure::ShapeScore sc;
    sc.label = r.label;
    const auto& x = candidate ? r.candidate : r.best;
    sc.check = r.check == "PASS" ? measure::Check::Pass : measure::Check::Fail;
    sc.value = x ? *x : std::nan("");
    if (!x) sc.problem = "not measured";
    if (sc.countsAsPass()) pass.push_back(sc.value);
    v.shapes.push_back(sc);
  }
  v.passCount = pass.size();
  v.geomeanPass = pass.empty() ? 0.0 : measure::geomean(pass);
  return v;
}

PlausibilityAudit auditPlausibility(const std::vector<ShapeRow>& rows, const measure::PrimaryMetric& metric,
                                    std::optional<double> peak) {
  const auto cand = scoresOf(rows, metric, true);
  const auto best = scoresOf(rows, metric, false);
  const auto report = measure::checkPlausibility(cand, &best, peak);
  PlausibilityAudit audit;
  for (const auto& sh : report.shapes) {
    for (const auto f : sh.flags) {
      audit.flags.push_back(sh.label + ": " + measure::toString(f) + (sh.message.empty() ? "" : " (" + sh.message + ")"));
    }
  }
  audit.needsAudit = report.needsAudit();
  return audit;
}

void applyAudit(ValidationVerdict& verdict, const PlausibilityAudit& audit) {
  if (!audit.needsAudit) return;
  verdict.decision = RoundVerdict::Audit;
  verdict.reasons.insert(verdict.reasons.begin(),
                         GateReason{"plausibility_audit", "",
                                    "numbers beyond what the hardware or one honest change can do: a person must "
                                    "audit them before ACCEPT"});
}

std::string reasonText(const std::vector<GateReason>& reasons) {
  std::string text;
  for (const auto& r : reasons) {
    if (!text.empty()) text += "; ";
    text += r.message;
  }
  return text;
}

}  // namespace kopt::campaign
