#include "campaign/pending_decision.h"

#include <doctest/doctest.h>

#include <deque>

#include "campaign/engine_record_json.h"
#include "campaign/ledger_events.h"

using namespace kopt::campaign;
using json = nlohmann::json;

namespace {

LedgerEvent event(std::uint64_t seq, const std::string& type, int round, json payload = json::object()) {
  LedgerEvent e;
  e.seq = seq;
  e.type = type;
  e.round = round;
  e.payload = std::move(payload);
  return e;
}

json measuredRecord(double value) {
  kopt::campaign::records::RoundRecord r;
  r.number = 2;
  r.validation = "quick";
  r.gateVerdict = "ACCEPT";
  r.aggregate.value = value;
  return detail::roundRecordToJson(r);
}

struct Fixture {
  std::vector<LedgerEvent> events;
  DecisionContext context;
  PendingStep pending;
  std::string fingerprintNow = "fp-measured";

  explicit Fixture(const std::string& decision = "ACCEPT") {
    events.push_back(event(7, "round_begun", 2, {{"lineage_head", "abc"}}));
    events.push_back(event(8, "round_validated", 2,
                           {{"decision", decision}, {"fingerprint", "fp-measured"}, {"record", measuredRecord(120.0)}}));
    OpenRound open;
    open.number = 2;
    open.lineageHead = "abc";
    open.declaredFiles = {"gemm_config.h"};
    context.openRound = open;
    context.kernelScope = {"gemm.cpp", "gemm_config.h"};
    context.treeFingerprint = [this] { return fingerprintNow; };
    json record = measuredRecord(120.0);
    record["status"] = "ACCEPTED";
    record["attribution"] = "the agent's prose";
    pending.round = 2;
    pending.step = "decide";
    PendingDecision d;
    d.accept = true;
    d.lineageHead = "abc";
    d.declared = {"gemm_config.h"};
    d.scope = {"gemm.cpp", "gemm_config.h"};
    d.record = record;
    pending.detail = d;
    pending.afterSeq = 8;
  }
  PendingDecision& decision() { return *pending.decision(); }
  json& record() { return *decision().record; }
  // The ledger as the engine sees it: decoded, folded round by round.
  std::deque<TypedEvent> typed;
  RoundLog rounds;
  std::string reason() {
    typed.clear();
    for (const auto& e : events) typed.push_back(std::get<TypedEvent>(decode(e)));
    rounds = RoundLog(typed);
    context.rounds = &rounds;
    return unbackedDecisionReason(pending, context);
  }
};

}  // namespace

TEST_CASE("pending decision: kopt's own decision on an ACCEPT verdict is backed") {
  Fixture f;
  CHECK(f.reason() == "");
  // After the commit, the tree no longer needs to match (it is the commit).
  f.fingerprintNow = "fp-other";
  CHECK(f.reason().find("differ from the ones validate_round measured") != std::string::npos);
  f.decision().git = GitApplied{"def", {"gemm_config.h"}};
  CHECK(f.reason() == "");
}

TEST_CASE("pending decision: without a verdict, or on a stale one, it is not backed") {
  Fixture f;
  f.events.pop_back();
  CHECK(f.reason().find("no standing verdict") != std::string::npos);
  Fixture stale;
  stale.events.push_back(event(9, "build_finished", 2));
  CHECK(stale.reason().find("no standing verdict") != std::string::npos);
  // A verdict of another round does not count.
  Fixture other;
  other.events[1].round = 1;
  CHECK(other.reason().find("no standing verdict") != std::string::npos);
}

TEST_CASE("pending decision: an accept on a ROLLBACK verdict is not backed; the rollback is") {
  Fixture f("ROLLBACK");
  CHECK(f.reason().find("whose verdict in the ledger is ROLLBACK") != std::string::npos);
  f.decision().accept = false;
  f.record()["status"] = "ROLLED BACK";
  CHECK(f.reason() == "");
  Fixture audit("AUDIT");
  CHECK(audit.reason() == "");  // a person confirmed it in accept_or_revert's arguments
}

TEST_CASE("pending decision: another round, head, file set, numbers or status is not backed") {
  Fixture round;
  round.pending.round = 3;
  CHECK(round.reason().find("open round is round-2") != std::string::npos);
  Fixture head;
  head.decision().lineageHead = "def";
  CHECK(head.reason().find("head commit") != std::string::npos);
  Fixture files;
  files.decision().declared = {"gemm.cpp", "gemm_config.h"};
  CHECK(files.reason().find("not the ones round-2 declared") != std::string::npos);
  Fixture numbers;
  numbers.record()["aggregate"]["value"] = 999.0;
  CHECK(numbers.reason().find("'aggregate' differs") != std::string::npos);
  Fixture status;
  status.record()["status"] = "ROLLED BACK";
  CHECK(status.reason().find("contradicts") != std::string::npos);
  Fixture closed;
  closed.context.openRound.reset();
  CHECK(closed.reason() == "no round is open in the ledger");
  Fixture garbage;
  garbage.record()["number"] = "two";
  CHECK_FALSE(garbage.reason().empty());
}

TEST_CASE("pending decision: a marker that does not say what it decides, or has no record, is not backed") {
  Fixture silent;
  silent.decision().accept.reset();
  CHECK(silent.reason() == "it does not say whether it accepts");
  Fixture bare;
  bare.decision().record.reset();
  CHECK(bare.reason() == "its record is missing");
  Fixture other;
  other.pending.step = "bench";
  other.pending.detail = PendingMeasurement{"r2-quick-1", {}, ""};
  CHECK(other.reason() == "it is not a decision");
}
