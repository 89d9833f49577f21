#include "campaign/round_log.h"

#include <doctest/doctest.h>

namespace kopt::campaign {
namespace {

records::RoundRecord recordOf(int number, RoundStatus status) {
  records::RoundRecord r;
  r.number = number;
  r.status = status;
  return r;
}

struct EventList {
  std::deque<TypedEvent> events;
  void add(LedgerPayload payload, std::optional<int> round) {
    events.push_back(TypedEvent{events.size() + 1, "", round, std::move(payload)});
  }
  void baseline() {
    BaselineRecorded b;
    b.record = recordOf(1, RoundStatus::Baseline);
    add(b, 1);
  }
  void begin(int round) { add(RoundBegun{}, round); }
  void build(int round, const std::string& fingerprint, bool ok = true) {
    BuildFinished b;
    b.ok = ok;
    b.fingerprint = fingerprint;
    add(b, round);
  }
  void validate(int round, const std::string& fingerprint, RoundVerdict decision) {
    RoundValidated v;
    v.fingerprint = fingerprint;
    v.decision = decision;
    add(v, round);
  }
  void decide(int round, RoundStatus status) { add(RoundDecided{status, "c", recordOf(round, status), {}, ""}, round); }
};

}  // namespace

TEST_CASE("round log: a round's last build, tests and verdicts since it began") {
  EventList l;
  l.baseline();
  l.build(2, "stale");  // before round 2 began: not its own
  l.begin(2);
  l.build(2, "f1", false);
  l.build(2, "f2");
  l.add(TestsFinished{true, "exited", 0, 5, "f2", ""}, 2);
  l.add(BenchFinished{}, 2);
  l.validate(2, "f2", RoundVerdict::Rollback);
  const RoundLog log(l.events);
  const RoundProgress* r = log.round(2);
  REQUIRE(r);
  REQUIRE(r->lastBuild);
  CHECK(r->lastBuild->fingerprint == "f2");
  REQUIRE(r->lastTests);
  CHECK(r->lastTests->fingerprint == "f2");
  CHECK(r->measurements == 2);
  REQUIRE(r->standingVerdict);
  CHECK((r->standingVerdict->decision == RoundVerdict::Rollback));
  CHECK(r->verdictOn("f2") == r->lastVerdict());
  CHECK(r->verdictOn("f1") == nullptr);
  CHECK(log.round(3) == nullptr);
}

TEST_CASE("round log: a fix inside the round makes its verdict stale; add() keeps what it handed out") {
  EventList l;
  l.baseline();
  l.begin(2);
  l.validate(2, "f1", RoundVerdict::Accept);
  RoundLog log(l.events);
  const RoundProgress* r = log.round(2);
  REQUIRE(r);
  REQUIRE(r->standingVerdict);
  l.build(2, "f2");
  log.add(l.events.back());
  CHECK(r == log.round(2));
  CHECK(r->standingVerdict == nullptr);
  CHECK(r->lastVerdict() != nullptr);  // still the round's verdict, only no longer standing
  l.validate(2, "f2", RoundVerdict::Accept);
  log.add(l.events.back());
  CHECK(r->standingVerdict == r->lastVerdict());
  CHECK(r->verdicts.size() == 2);
}

TEST_CASE("round log: records, the best, the decisions and the termination check since the last round") {
  EventList l;
  l.baseline();
  l.add(TerminationChecked{}, std::nullopt);
  l.begin(2);
  l.decide(2, RoundStatus::Accepted);
  l.begin(3);
  l.decide(3, RoundStatus::RolledBack);
  TerminationChecked stop;
  stop.stop = true;
  l.add(stop, std::nullopt);
  l.add(WorktreeBuilt{"best", "c1", "b", "x", ""}, std::nullopt);
  l.add(WorktreeBuilt{"baseline", "c0", "b", "y", ""}, std::nullopt);
  l.add(WorktreeBuilt{"best", "c2", "b", "z", ""}, std::nullopt);
  const RoundLog log(l.events);
  REQUIRE(log.records().size() == 3);
  CHECK(log.records()[2]->number == 3);
  REQUIRE(log.bestRecord());
  CHECK(log.bestRecord()->number == 2);
  REQUIRE(log.record(1));
  CHECK((log.record(1)->status == RoundStatus::Baseline));
  CHECK(log.record(4) == nullptr);
  CHECK(log.acceptedRounds() == 1);
  CHECK(log.rolledBackRounds() == 1);
  REQUIRE(log.terminationSinceLastRound());
  CHECK(log.terminationSinceLastRound()->stop);
  REQUIRE(log.lastWorktreeBuild("best"));
  CHECK(log.lastWorktreeBuild("best")->commit == "c2");
  CHECK(log.lastWorktreeBuild("scratch") == nullptr);
  // Folded up to the rolled-back round's decision: the check after it is not there yet.
  const RoundLog earlier(l.events, 6);
  CHECK(earlier.terminationSinceLastRound() == nullptr);
  CHECK(earlier.records().size() == 3);
}

}  // namespace kopt::campaign
