#include "campaign/validation_verdict.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace kopt::campaign;
namespace measure = kopt::measure;

namespace {

ShapeRow row(const std::string& label, const std::string& check, std::optional<double> candidate,
             std::optional<double> best) {
  ShapeRow r;
  r.label = label;
  r.check = check;
  r.candidate = candidate;
  r.best = best;
  return r;
}

std::vector<std::string> codes(const ValidationVerdict& v) {
  std::vector<std::string> out;
  for (const auto& r : v.reasons) out.push_back(r.code);
  return out;
}

}  // namespace

TEST_CASE("validation verdict: a rollback puts its reason first") {
  ValidationVerdict v;
  CHECK_FALSE(v.decided());
  v.reasons.push_back({"earlier", "", "what was there"});
  v.rollBack("tests_failed", "the tests failed");
  CHECK(v.decided());
  CHECK((v.decision == RoundVerdict::Rollback));
  CHECK_FALSE(v.accepting());
  CHECK(codes(v) == std::vector<std::string>{"tests_failed", "earlier"});
  CHECK(v.reasons.front().message == "the tests failed");
  CHECK(v.reasons.front().label.empty());
}

TEST_CASE("validation verdict: schema or shape-set drift is a rollback naming each difference") {
  AssembledRuns a;
  a.problems = {"header differs", "run 2 failed"};
  a.shapeSetDrift = true;
  auto v = driftVerdict(a);
  CHECK((v.decision == RoundVerdict::Rollback));
  CHECK(codes(v) == std::vector<std::string>{"shape_set_drift", "shape_set_drift"});
  CHECK(v.reasons[1].message == "run 2 failed");
  a.schemaDrift = true;  // schema drift names itself even when the shape set drifted too
  CHECK(codes(driftVerdict(a)) == std::vector<std::string>{"schema_drift", "schema_drift"});
}

TEST_CASE("validation verdict: the gate's decision is taken over with its reasons, then the run problems") {
  measure::GateResult gate;
  gate.decision = measure::Decision::AcceptWithNote;
  gate.reasons.push_back({measure::ReasonCode::Improved, "", "better"});
  gate.reasons.push_back({measure::ReasonCode::ShapeSlowedWithinNoise, "m64", "slower within noise"});
  auto v = gateVerdict(gate, {"pair 3: best crashed"}, 8);
  CHECK((v.decision == RoundVerdict::AcceptWithNote));
  CHECK(v.accepting());
  CHECK(codes(v) == std::vector<std::string>{measure::toString(measure::ReasonCode::Improved),
                                             measure::toString(measure::ReasonCode::ShapeSlowedWithinNoise),
                                             "run_problem"});
  CHECK(v.reasons[1].label == "m64");
  CHECK(v.reasons[2].message == "pair 3: best crashed");

  gate.decision = measure::Decision::Accept;
  CHECK((gateVerdict(gate, {}, 8).decision == RoundVerdict::Accept));
  gate.decision = measure::Decision::Rollback;
  CHECK((gateVerdict(gate, {}, 8).decision == RoundVerdict::Rollback));
}

TEST_CASE("validation verdict: a gate still undecided at the pair cap is not shown better") {
  measure::GateResult gate;
  gate.decision = measure::Decision::Remeasure;
  gate.reasons.push_back({measure::ReasonCode::ShapeInconclusive, "m64", "inconclusive"});
  auto v = gateVerdict(gate, {}, 24);
  CHECK((v.decision == RoundVerdict::Rollback));
  REQUIRE(v.reasons.size() == 2);
  CHECK(v.reasons[0].code == "pair_cap_reached");
  CHECK(v.reasons[0].message == "still inconclusive after 24 interleaved pairs (the cap): not shown better");
}

TEST_CASE("validation verdict: result rows score as the plausibility check reads them") {
  const std::vector<ShapeRow> rows = {row("a", "PASS", 4.0, 2.0), row("b", "FAIL", 9.0, 3.0),
                                      row("c", "PASS", 1.0, std::nullopt), row("d", "PASS", std::nullopt, 8.0)};
  const auto cand = scoresOf(rows, measure::PrimaryMetric{}, true);
  REQUIRE(cand.shapes.size() == 4);
  CHECK(cand.passCount == 2);  // a and c: b failed, d was not measured
  CHECK(cand.geomeanPass == doctest::Approx(2.0));
  CHECK(cand.shapes[3].problem == "not measured");
  CHECK(std::isnan(cand.shapes[3].value));
  CHECK((cand.shapes[1].check == measure::Check::Fail));
  const auto best = scoresOf(rows, measure::PrimaryMetric{}, false);
  CHECK(best.passCount == 2);  // a and d, under the candidate's checks
  CHECK(best.geomeanPass == doctest::Approx(4.0));
  CHECK(scoresOf({}, measure::PrimaryMetric{}, true).geomeanPass == 0.0);
}

TEST_CASE("validation verdict: an ACCEPT beyond the peak or ten times the best goes to AUDIT") {
  const std::vector<ShapeRow> honest = {row("a", "PASS", 110.0, 100.0)};
  auto audit = auditPlausibility(honest, measure::PrimaryMetric{}, 1000.0);
  CHECK(audit.flags.empty());
  CHECK_FALSE(audit.needsAudit);
  ValidationVerdict v{RoundVerdict::Accept, {{"improved", "", "better"}}};
  applyAudit(v, audit);
  CHECK((v.decision == RoundVerdict::Accept));

  const std::vector<ShapeRow> wild = {row("a", "PASS", 1100.0, 100.0), row("b", "FAIL", 5000.0, 1.0)};
  audit = auditPlausibility(wild, measure::PrimaryMetric{}, 1000.0);
  CHECK(audit.needsAudit);
  REQUIRE(audit.flags.size() == 2);  // the FAIL row claims nothing
  CHECK(audit.flags[0].rfind("a: above_peak (110.0% of the device peak", 0) == 0);
  CHECK(audit.flags[1].rfind("a: jump_vs_best (", 0) == 0);
  applyAudit(v, audit);
  CHECK((v.decision == RoundVerdict::Audit));
  CHECK(codes(v) == std::vector<std::string>{"plausibility_audit", "improved"});

  // Without a peak only the jump can fire.
  CHECK(auditPlausibility(wild, measure::PrimaryMetric{}, std::nullopt).flags ==
        std::vector<std::string>{"a: jump_vs_best (11.0x the current best in one round (audit above 10x))"});
}

TEST_CASE("validation verdict: the record's reason joins the messages in order") {
  CHECK(reasonText({}).empty());
  CHECK(reasonText({{"x", "", "one"}, {"y", "m64", "two"}}) == "one; two");
}
