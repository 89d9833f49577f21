#include "campaign/rolled_back_rounds.h"

#include <doctest/doctest.h>

namespace kopt::campaign {
namespace {

records::ShapeResult shape(const std::string& label, const std::string& verdict, double gain, const std::string& check = "PASS") {
  records::ShapeResult s;
  s.label = label;
  s.check = check;
  s.verdict = verdict;
  s.deltaVsBestPct = gain;
  s.ciLowPct = gain - 8;
  s.ciHighPct = gain + 8;
  return s;
}

RoundDecided rolledBack(int number, std::vector<records::ShapeResult> shapes) {
  records::RoundRecord r;
  r.number = number;
  r.status = RoundStatus::RolledBack;
  r.description = "round " + std::to_string(number);
  r.decisionReason = "still INCONCLUSIVE";
  r.results = std::move(shapes);
  return RoundDecided{RoundStatus::RolledBack, "c", r, {"k.py"}, ""};
}

}  // namespace

TEST_CASE("a rolled-back round that proved a shape faster is no ineffective direction, in every list") {
  CHECK(directionOutcome(RoundStatus::RolledBack, true) == DirectionOutcome::RolledBackWithProvenShape);
  CHECK(directionOutcome(RoundStatus::RolledBack, false) == DirectionOutcome::Ineffective);
  CHECK(directionOutcome(RoundStatus::AcceptedWithNote, true) == DirectionOutcome::Effective);
  CHECK_FALSE(directionOutcome(RoundStatus::Baseline, false).has_value());

  std::deque<TypedEvent> events;
  auto add = [&](LedgerPayload p, int round) { events.push_back(TypedEvent{events.size() + 1, "", round, std::move(p)}); };
  BaselineRecorded base;
  base.record.number = 1;
  add(base, 1);
  add(RoundBegun{}, 2);
  add(rolledBack(2, {shape("s4k", "REGRESSED", -5), shape("s65k", "INCONCLUSIVE", 3)}), 2);
  add(RoundBegun{}, 3);
  add(rolledBack(3, {shape("s4k", "INCONCLUSIVE", 0.1), shape("s65k", "IMPROVED", 131),
                     shape("s8k", "IMPROVED", 40, "FAIL")}),  // a FAIL row proves nothing
      3);
  const RoundLog log(events);

  const auto all = rolledBackRounds(log);
  REQUIRE(all.size() == 2);
  CHECK(all[0].provenFaster.empty());
  REQUIRE(all[1].provenFaster.size() == 1);
  CHECK(all[1].provenFaster[0].describe() == "s65k IMPROVED +131.00% (CI +123.00% .. +139.00%)");
  CHECK(all[1].modifiedFiles == std::vector<std::string>{"k.py"});

  const auto ineffective = rolledBackRounds(log, DirectionOutcome::Ineffective);
  REQUIRE(ineffective.size() == 1);
  CHECK(ineffective[0].round == 2);
  const auto proven = rolledBackRounds(log, DirectionOutcome::RolledBackWithProvenShape);
  REQUIRE(proven.size() == 1);
  CHECK(proven[0].round == 3);
}

}  // namespace kopt::campaign
