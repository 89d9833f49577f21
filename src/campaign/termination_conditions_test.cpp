// termination_check's conditions and directions, from the values the engine reads.
#include <doctest/doctest.h>

#include "campaign/termination_conditions.h"

namespace kopt::campaign {
namespace {

PerformanceTarget target(const std::string& op, double value, const std::string& unit) {
  return PerformanceTarget{op + " " + std::to_string(value) + " " + unit, op, value, unit};
}

TEST_CASE("termination: T1 compares the best with the target in the metric's unit") {
  CHECK(targetCondition(std::nullopt, 10.0, "TFLOPS").detail == "no performance_target set");
  CHECK(targetCondition(target(">", 5, "TFLOPS"), std::nullopt, "TFLOPS").detail == "no measured best yet");
  const auto wrongUnit = targetCondition(target(">", 5, "GB/s"), 10.0, "TFLOPS");
  CHECK_FALSE(wrongUnit.met);
  CHECK(wrongUnit.detail == "target is in GB/s but the primary metric is in TFLOPS");
  CHECK(targetCondition(target(">", 5, "tflops"), 10.0, "TFLOPS").met);
  CHECK_FALSE(targetCondition(target(">", 10, "TFLOPS"), 10.0, "TFLOPS").met);
  CHECK(targetCondition(target(">=", 10, "TFLOPS"), 10.0, "TFLOPS").met);
  CHECK(targetCondition(target("<", 2, "ms"), 1.5, "ms").met);
}

TEST_CASE("termination: T2 stops at 80 % of the device's peak") {
  CHECK(peakCondition(std::nullopt, 10.0, "GB/s", "sm_90").detail == "no hardware peak known for sm_90");
  const auto below = peakCondition(4224.7, 1622.0, "GB/s", "sm_90");
  CHECK_FALSE(below.met);
  CHECK(below.detail == "best is 38.4% of the 4224 GB/s peak (stop at 80%)");
  CHECK(peakCondition(100.0, 80.0, "TFLOPS", "sm_90").met);
}

TEST_CASE("termination: T3 counts rounds and the time since the user confirmed") {
  CHECK(budgetCondition(3, std::nullopt, std::nullopt, std::nullopt).detail == "3 rounds used; no max_iterations");
  CHECK(budgetCondition(30, 30, std::nullopt, std::nullopt).met);
  const auto timeUsed = budgetCondition(2, 30, Duration{"6h", 6 * 3600}, 125);
  CHECK_FALSE(timeUsed.met);
  CHECK(timeUsed.detail == "2 of max_iterations 30 rounds used; 2 min of max_duration 6h used");
  const auto over = budgetCondition(2, 30, Duration{"1h", 3600}, 3600);
  CHECK(over.met);
  CHECK(over.detail == "2 of max_iterations 30 rounds used; 60 min of max_duration 1h used up");
}

TEST_CASE("termination: the first condition met is the decision") {
  std::vector<Condition> conditions = {targetCondition(std::nullopt, 1.0, "x"), userStopCondition(false)};
  CHECK(stopDecision(conditions) == "continue");
  conditions.push_back(userStopCondition(true));
  CHECK(stopDecision(conditions) == "stop: T4 (the user asked to stop)");
}

TEST_CASE("termination: directions are 'category: text', and the error names the one that is not") {
  auto ok = parseDirections({" Tiling : 128x64 tiles", "memory: async copies", "tiling: split K"});
  const auto& parsed = std::get<ParsedDirections>(ok);
  CHECK(parsed.categories == 2);
  REQUIRE(parsed.directions.size() == 3);
  CHECK(parsed.directions[0].category == "tiling");
  CHECK(parsed.directions[0].text == "128x64 tiles");
  auto bad = parseDirections({"memory: ok", "no colon here"});
  const auto& failure = std::get<ToolFailure>(bad);
  CHECK(failure.field == "directions");
  CHECK(failure.message == "directions[1] = 'no colon here' is not 'category: direction'");
}

}  // namespace
}  // namespace kopt::campaign
