#include "campaign/result_rows.h"

#include <cmath>

#include "campaign/measured_record.h"
#include "measure/scoring.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

std::vector<ShapeRow> shapeRows(const AssembledRuns& assembled, const std::vector<PairRun>& pairs,
                                const measure::GateResult* gate) {
  std::vector<ShapeRow> rows;
  for (const auto& [label, check] : assembled.candidateChecks) {
    ShapeRow row;
    row.label = label;
    row.check = measure::toString(check);
    row.candidate = armMedian(pairs, true, label);
    row.best = armMedian(pairs, false, label);
    if (check != measure::Check::Pass) row.verdict = "FAIL";
    if (gate) {
      for (const auto& v : gate->shapes) {
        if (v.label != label) continue;
        row.ratio = v.ratio;
        row.ciLowPct = 100.0 * (v.ciLow - 1.0);
        row.ciHighPct = 100.0 * (v.ciHigh - 1.0);
        row.deltaPct = 100.0 * v.delta;
        row.mdePct = 100.0 * v.mde;
        row.tolerancePct = 100.0 * v.tolerance;
        if (row.verdict.empty()) row.verdict = measure::toString(v.verdict);
        row.note = v.note;
      }
    }
    if (!row.ratio && row.candidate && row.best && *row.best > 0) row.ratio = *row.candidate / *row.best;
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::optional<double> geomeanPass(const std::vector<ShapeRow>& rows, bool candidate) {
  std::vector<double> v;
  for (const auto& r : rows) {
    const auto& x = candidate ? r.candidate : r.best;
    if (r.check == "PASS" && x && *x > 0) v.push_back(*x);
  }
  if (v.empty()) return std::nullopt;
  const double g = measure::geomean(v);
  return std::isfinite(g) ? std::optional<double>(g) : std::nullopt;
}

}  // namespace

AggregateRow aggregateRow(const OpenCampaign& session, const std::vector<ShapeRow>& rows, const measure::GateResult* gate) {
  AggregateRow a;
  a.metric = measureMetric(session.manifest).name();
  a.candidate = geomeanPass(rows, true);
  a.best = geomeanPass(rows, false);
  if (gate && gate->aggregate) {
    a.ratio = gate->aggregate->ratio;
    a.ciLowPct = 100.0 * (gate->aggregate->ciLow - 1.0);
    a.ciHighPct = 100.0 * (gate->aggregate->ciHigh - 1.0);
  } else if (a.candidate && a.best && *a.best > 0) {
    a.ratio = *a.candidate / *a.best;
  }
  if (auto base = roundRecord(session, 1); base && base->aggregate.value && *base->aggregate.value > 0 && a.candidate) {
    a.vsBaselinePct = measure::percentChange(*a.candidate, *base->aggregate.value);
  }
  return a;
}

std::vector<GateReason> gateReasons(const measure::GateResult& gate) {
  std::vector<GateReason> out;
  for (const auto& r : gate.reasons) out.push_back({measure::toString(r.code), r.label, r.message});
  return out;
}

}  // namespace kopt::campaign::detail
