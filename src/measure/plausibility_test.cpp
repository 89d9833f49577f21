#include "measure/plausibility.h"

#include <doctest/doctest.h>

using namespace kopt::measure;

namespace {

ScoreVector scores(std::vector<std::pair<std::string, double>> values, Check check = Check::Pass) {
  ScoreVector v;
  v.metric = PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""};
  for (auto& [label, value] : values) {
    ShapeScore s;
    s.label = label;
    s.check = check;
    s.value = value;
    v.shapes.push_back(s);
  }
  return v;
}

bool has(const ShapePlausibility& s, AuditFlag f) {
  for (auto x : s.flags)
    if (x == f) return true;
  return false;
}

}  // namespace

TEST_CASE("percent of peak, near speed of light and above peak") {
  ScoreVector c = scores({{"ok", 500}, {"near", 910}, {"over", 1200}});
  PlausibilityReport r = checkPlausibility(c, nullptr, 1000.0);
  REQUIRE(r.shapes.size() == 3);
  CHECK(*r.shapes[0].percentOfPeak == doctest::Approx(50.0));
  CHECK(r.shapes[0].flags.empty());
  CHECK(r.shapes[0].message.empty());
  CHECK(has(r.shapes[1], AuditFlag::NearSpeedOfLight));
  CHECK(r.shapes[1].message.find("91.0% of the device peak") == 0);
  CHECK(has(r.shapes[2], AuditFlag::AbovePeak));
  CHECK_FALSE(has(r.shapes[2], AuditFlag::NearSpeedOfLight));
  CHECK(r.needsAudit());
}

TEST_CASE("a jump of more than 10x in one round is flagged; 10x exactly is not") {
  ScoreVector best = scores({{"a", 10}, {"b", 10}, {"c", 10}});
  ScoreVector cand = scores({{"a", 100}, {"b", 101}, {"new", 5000}});
  PlausibilityReport r = checkPlausibility(cand, &best, std::nullopt);
  CHECK(r.shapes[0].flags.empty());
  CHECK(*r.shapes[0].jumpVsBest == doctest::Approx(10.0));
  CHECK(has(r.shapes[1], AuditFlag::JumpVsBest));
  CHECK(r.shapes[1].message.find("10.1x the current best") == 0);
  CHECK_FALSE(r.shapes[2].jumpVsBest.has_value());  // no best for this shape
  CHECK_FALSE(r.shapes[0].percentOfPeak.has_value());
}

TEST_CASE("FAIL rows claim nothing; thresholds come from the policy") {
  CHECK(checkPlausibility(scores({{"a", 5000}}, Check::Fail), nullptr, 1000.0).shapes.empty());
  PlausibilityPolicy strict;
  strict.auditFractionOfPeak = 0.5;
  strict.maxJumpRatio = 2.0;
  ScoreVector best = scores({{"a", 100}});
  PlausibilityReport r = checkPlausibility(scores({{"a", 600}}), &best, 1000.0, strict);
  CHECK(has(r.shapes[0], AuditFlag::NearSpeedOfLight));
  CHECK(has(r.shapes[0], AuditFlag::JumpVsBest));
  CHECK(r.shapes[0].message.find("; ") != std::string::npos);
  CHECK_FALSE(checkPlausibility(scores({{"a", 1}}), nullptr, 0.0).needsAudit());  // unusable peak
  CHECK(std::string(toString(AuditFlag::JumpVsBest)) == "jump_vs_best");
}
