#include "campaign/report/real_training_audit.h"

#include <doctest/doctest.h>

#include "campaign/report/report_test_support.h"

using namespace kopt::campaign::report;

namespace {

RoundRecord accepted(int number, double aggregate, std::optional<Rule11Bucket> bucket) {
  RoundRecord r;
  r.number = number;
  r.status = RoundStatus::Accepted;
  r.aggregate = aggregate;
  r.bucket = bucket;
  return r;
}

CampaignHistory withBaseline(double aggregate) {
  CampaignHistory h;
  RoundRecord base;
  base.number = 1;
  base.status = RoundStatus::Baseline;
  base.aggregate = aggregate;
  h.rounds.push_back(base);
  return h;
}

}  // namespace

TEST_CASE("kernel-side gains are S_real and transfer in full") {
  auto h = withBaseline(100);
  h.rounds.push_back(accepted(2, 110, Rule11Bucket::K1));
  h.rounds.push_back(accepted(3, 121, Rule11Bucket::K3));
  auto a = auditRealTraining(h);
  REQUIRE(a.rows.size() == 2);
  CHECK(a.benchmarkGainPct == doctest::Approx(21));
  CHECK(a.sRealPct == doctest::Approx(21));
  CHECK(a.wRealPct == 0);
  CHECK(a.rRealPct == 0);
  CHECK(a.inflationGapPct == 0);
  CHECK((a.verdict == TransferDecision::AcceptAsReal));
}

TEST_CASE("a W1 gain is bounded by its quant_time/step_time estimate and leaves an inflation gap") {
  auto h = withBaseline(100);
  h.rounds.push_back(accepted(2, 110, Rule11Bucket::K2));
  RoundRecord w = accepted(3, 115.5, Rule11Bucket::W1);  // +5% in the benchmark
  w.transfer = TransferCheck{Rule11Bucket::W1, 1.0, TransferDecision::AcceptWithAsterisk, ""};
  h.rounds.push_back(w);
  auto a = auditRealTraining(h);
  CHECK(a.benchmarkGainPct == doctest::Approx(15.5));
  CHECK(a.wBenchmarkPct == doctest::Approx(5));
  CHECK(a.wRealPct == doctest::Approx(1));
  CHECK(a.realGainPct == doctest::Approx(11.1));  // 1.10 * 1.01
  CHECK(a.inflationGapPct == doctest::Approx(4.4));
  CHECK((a.verdict == TransferDecision::AcceptWithAsterisk));
}

TEST_CASE("W2/W3 and unattributed gains are R_real, which must be 0") {
  auto h = withBaseline(100);
  h.rounds.push_back(accepted(2, 120, Rule11Bucket::W2));
  auto a = auditRealTraining(h);
  CHECK(a.rRealPct == doctest::Approx(20));
  CHECK(a.realGainPct == doctest::Approx(0));
  CHECK((a.verdict == TransferDecision::RejectAsOverfit));

  auto none = withBaseline(100);
  none.rounds.push_back(accepted(2, 105, std::nullopt));
  CHECK((auditRealTraining(none).verdict == TransferDecision::RejectAsOverfit));

  auto rejected = withBaseline(100);
  RoundRecord r = accepted(2, 105, Rule11Bucket::K1);
  r.transfer = TransferCheck{Rule11Bucket::K1, kNaN, TransferDecision::RejectAsOverfit, "id(activation) cache"};
  rejected.rounds.push_back(r);
  auto ra = auditRealTraining(rejected);
  CHECK((ra.rows[0].cls == AuditClass::RReal));
  CHECK((ra.verdict == TransferDecision::RejectAsOverfit));
}

TEST_CASE("a W1 gain without a bound is counted but flagged") {
  auto h = withBaseline(100);
  h.rounds.push_back(accepted(2, 103, Rule11Bucket::W1));
  auto a = auditRealTraining(h);
  CHECK_FALSE(a.rows[0].boundKnown);
  CHECK((a.verdict == TransferDecision::AcceptWithAsterisk));
}

TEST_CASE("rolled-back rounds, NaN aggregates and empty histories do not enter the audit") {
  CHECK((auditRealTraining(CampaignHistory{}).verdict == TransferDecision::None));
  auto h = withBaseline(100);
  RoundRecord back = accepted(2, 130, Rule11Bucket::W3);
  back.status = RoundStatus::RolledBack;
  h.rounds.push_back(back);
  h.rounds.push_back(accepted(3, kNaN, Rule11Bucket::K1));
  auto a = auditRealTraining(h);
  CHECK(a.rows.empty());
  CHECK((a.verdict == TransferDecision::None));
  CHECK(a.benchmarkGainPct == 0);
}

TEST_CASE("lower-is-better metrics count a shorter time as a gain") {
  auto h = withBaseline(10.0);  // ms
  h.higherIsBetter = false;
  h.rounds.push_back(accepted(2, 8.0, Rule11Bucket::K1));
  CHECK(auditRealTraining(h).sRealPct == doctest::Approx(25));
}

TEST_CASE("the sample campaign splits into S_real and a bounded W_real") {
  auto a = auditRealTraining(testing::sampleHistory());
  REQUIRE(a.rows.size() == 2);
  CHECK((a.rows[0].cls == AuditClass::SReal));
  CHECK((a.rows[1].cls == AuditClass::WReal));
  CHECK(a.benchmarkGainPct == doctest::Approx((303.5 / 281.0 - 1) * 100));
  CHECK(a.wRealPct == doctest::Approx(1.2));
  CHECK(a.inflationGapPct > 0);
}
