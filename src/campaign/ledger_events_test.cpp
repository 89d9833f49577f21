#include "campaign/ledger_events.h"

#include <doctest/doctest.h>

#include <set>

#include "campaign/ledger_events_fixture.h"
#include "util/sha256.h"

namespace kopt::campaign {
namespace {

using json = nlohmann::json;

LedgerEvent lineToEvent(const std::string& line) {
  const json j = json::parse(line);
  LedgerEvent e;
  e.seq = j.at("seq").get<std::uint64_t>();
  e.ts = j.at("ts").get<std::string>();
  e.type = j.at("type").get<std::string>();
  if (!j.at("round").is_null()) e.round = j.at("round").get<int>();
  e.payload = j.at("payload");
  e.prev = j.at("prev").get<std::string>();
  e.hash = j.at("hash").get<std::string>();
  e.mac = j.value("mac", "");
  return e;
}

LedgerEvent eventOf(const LedgerPayload& payload, std::uint64_t seq = 7) {
  LedgerEvent e;
  e.seq = seq;
  e.type = eventType(payload);
  e.payload = encode(payload);
  return e;
}

TypedEvent decoded(const LedgerEvent& e) {
  auto d = decode(e);
  if (auto* error = std::get_if<CodecError>(&d)) FAIL(error->message);
  return std::get<TypedEvent>(std::move(d));
}

std::string errorOf(const LedgerEvent& e) {
  auto d = decode(e);
  REQUIRE(std::holds_alternative<CodecError>(d));
  return std::get<CodecError>(d).message;
}

// encode(decode(encode(x))) == encode(x): nothing the codec writes is lost on the way back.
void checkRoundTrip(const LedgerPayload& payload) {
  const LedgerEvent e = eventOf(payload);
  const TypedEvent t = decoded(e);
  CHECK(std::string(t.type()) == e.type);
  CHECK(encode(t.payload).dump() == e.payload.dump());
}

records::RoundRecord sampleRecord(int number) {
  records::RoundRecord r;
  r.number = number;
  r.campaign = "c";
  r.description = "raise the knob";
  r.status = RoundStatus::AcceptedWithNote;
  r.aggregate.metric = "Forward TFLOPS";
  r.aggregate.value = 123.5;
  records::ShapeResult s;
  s.label = "s1";
  s.dims = {{"M", "128"}};
  s.check = "PASS";
  s.metrics.push_back({"Forward TFLOPS", 123.5, std::nullopt});
  s.primaryValue = 123.5;
  s.verdict = "IMPROVED";
  r.results.push_back(s);
  records::Hypothesis h;
  h.statement = "I expect more";
  h.change = "knob";
  h.files = {"kernel/config.ini"};
  r.hypothesis = h;
  return r;
}

}  // namespace

TEST_CASE("ledger events: lines written before the types decode and encode back to the same payload and hash") {
  std::set<std::string> types;
  for (const auto& line : testing::ledgerLinesWrittenBeforeTypes()) {
    const LedgerEvent stored = lineToEvent(line);
    CAPTURE(stored.seq);
    CAPTURE(stored.type);
    const TypedEvent t = decoded(stored);
    types.insert(t.type());
    CHECK(t.seq == stored.seq);
    CHECK(t.round == stored.round);
    LedgerEvent again = stored;
    again.payload = json::parse(encode(t.payload).dump());
    CHECK(again.payload.dump() == stored.payload.dump());
    CHECK(util::sha256Hex(Ledger::canonicalWithoutHash(again)) == stored.hash);
  }
  CHECK(types.size() == 16);  // all but tip_appended, which no writer produces
}

TEST_CASE("ledger events: the typed values of a line written before the types") {
  for (const auto& line : testing::ledgerLinesWrittenBeforeTypes()) {
    const TypedEvent t = decoded(lineToEvent(line));
    if (const auto* d = t.as<RoundDecided>(); d && d->status == RoundStatus::RolledBack) {
      CHECK(d->record.number == 3);
      CHECK(d->restoredFiles == std::vector<std::string>{"kernel/config.ini"});
      REQUIRE(d->record.rollback);
      CHECK(d->record.rollback->rootCause == "the change slowed the kernel");
    }
    if (const auto* b = t.as<BuildFinished>(); b && b->automatic) {
      CHECK(b->ok);
      CHECK(b->content.has_value());
      CHECK(b->exitCode == 0);
    }
    if (const auto* b = t.as<BaselineRecorded>()) {
      CHECK(b->calibration.size() == 4);
      CHECK(b->calibration.front().label == "s1");
      CHECK_FALSE(b->frozen.empty());
      CHECK(b->harness.is_null());
      CHECK(harnessBlocksPerLook(*b) == 0);
    }
    if (const auto* e = t.as<EnvironmentPrepared>()) {
      CHECK(e->branch.value_or("") == "optimize/fake_gemm_cpu_cpu_20260412");
      CHECK_FALSE(e->harness.has_value());
    }
  }
}

TEST_CASE("ledger events: every event type round-trips through the codec") {
  TargetDefined defined;
  defined.campaign = "c";
  defined.repo = "/r";
  defined.campaignDir = "/r/.kopt/campaigns/c";
  defined.manifestSha256 = "ab";
  defined.redefined = true;
  defined.at = "2026-04-12 09:30";
  checkRoundTrip(defined);

  checkRoundTrip(TargetConfirmed{"tester", "elicitation", "ab", "2026-04-12 09:31"});
  checkRoundTrip(EnvironmentPrepared{std::nullopt, "c0ffee", "ab", std::nullopt, "t"});
  checkRoundTrip(EnvironmentPrepared{"optimize/c", "c0ffee", "ab", "/r/quick_test_bench.py", "t"});
  checkRoundTrip(TipsRead{"/tips/x.md", true, 3, "t"});

  BaselineRecorded baseline;
  baseline.commit = "c0ffee";
  baseline.record = sampleRecord(1);
  baseline.record.status = RoundStatus::Baseline;
  baseline.frozen.addText("schema header", "a,b");
  measure::ShapeNoise noise;
  noise.label = "s1";
  noise.pairs = 6;
  noise.sdLogRatio = 0.25;
  noise.delta = 0.015;
  baseline.calibration = {noise};
  baseline.representativeShapes = {"s1"};
  baseline.labels = {"s1", "s2"};
  baseline.schemaHeader = "a,b";
  baseline.metric = "Forward TFLOPS";
  baseline.pairs = 6;
  baseline.aaSame = 2;
  baseline.harness = json{{"ok", true}, {"blocks_per_look", 4}, {"shapes", json::array()}, {"problems", json::array()}};
  baseline.aaBiasAlarm = {"s2 reads a bias"};
  baseline.aaShapes = 2;
  baseline.measurement = "r1-aa-1";
  baseline.at = "t";
  checkRoundTrip(baseline);
  CHECK(harnessBlocksPerLook(baseline) == 4);

  RoundBegun begun;
  begun.hypothesis = sampleRecord(2).hypothesis;
  begun.hypothesisSha256 = "12";
  begun.lineageHead = "c0ffee";
  begun.files = {"kernel/config.ini"};
  begun.configOnly = true;
  begun.at = "t";
  checkRoundTrip(begun);

  BuildFinished build;
  build.ok = true;
  build.outcome = "exited";
  build.exitCode = 0;
  build.wallMs = 70;
  build.fingerprint = "f1";
  build.content = "c1";
  build.automatic = true;
  build.at = "t";
  checkRoundTrip(build);
  BuildFinished skipped;
  skipped.ok = true;
  skipped.skipped = true;
  skipped.outcome = "skipped";
  skipped.fingerprint = "f1";
  checkRoundTrip(skipped);
  CHECK(encode(skipped).dump() == R"({"fingerprint":"f1","ok":true,"outcome":"skipped","skipped":true})");

  checkRoundTrip(TestsFinished{false, "exited", 2, 91, "f1", "t"});
  checkRoundTrip(BenchFinished{true, 3, "f1", "r2-full-1", "REMEASURE", {"a run failed"}, "t"});

  RoundValidated validated;
  validated.decision = RoundVerdict::AcceptWithNote;
  validated.reasons = {{"improved", "", "geomean +5%"}, {"shape_regressed", "s2", "s2 slower"}};
  validated.fingerprint = "f1";
  validated.pairs = 6;
  validated.measurements = {"r2-validate-quick-2"};
  validated.flags = {"near noise"};
  validated.hypothesisSha256 = "12";
  validated.changedFiles = {"kernel/config.ini"};
  validated.record = sampleRecord(2);
  validated.at = "t";
  checkRoundTrip(validated);

  checkRoundTrip(RoundDecided{RoundStatus::Accepted, "beef", sampleRecord(2), {"kernel/config.ini"}, "t"});

  TerminationChecked term;
  term.afterRound = 4;
  term.conditions = {{"T1", false, "no target"}, {"T4", true, "the user asked to stop"}};
  term.stop = true;
  term.decision = "stop: T4 (the user asked to stop)";
  term.stagnationReview = true;
  term.directions = {{"tiling", "bigger tiles"}};
  term.at = "t";
  checkRoundTrip(term);

  FinalAcceptanceDone final;
  final.testsOk = true;
  final.tests = "exited with code 0";
  final.pairs = 6;
  final.shapes = {{"s1", "PASS", 1.5, 1.0, 1.5, "IMPROVED"}, {"s2", "FAIL", std::nullopt, std::nullopt, std::nullopt, "FAIL"}};
  final.aggregate = 1.5;
  final.bestCommit = "beef";
  final.baselineCommit = "c0ffee";
  final.at = "t";
  checkRoundTrip(final);

  ReportWritten report;
  report.metric = "Forward TFLOPS";
  report.bestRound = 2;
  report.files = {"report.md"};
  checkRoundTrip(report);
  report.baselineValue = 100.0;
  report.bestValue = 120.0;
  report.improvementPct = 20.0;
  report.realTrainingAudit = "see report.md";
  checkRoundTrip(report);
  CHECK_FALSE(encode(report).contains("rolled_back_with_proven_shape"));  // absent when empty: older records unchanged
  report.rolledBackWithProvenShape = {"round-3: grid-stride: s65k IMPROVED +131.00%; rolled back: s4k INCONCLUSIVE"};
  checkRoundTrip(report);

  checkRoundTrip(TipAppended{"t"});
  checkRoundTrip(PendingDiscarded{"decide", "2026-04-12T10:00:00Z", json("yes, a string"), "no verdict", "t"});
  checkRoundTrip(PendingDiscarded{"decide", "2026-04-12T10:00:00Z", json(nullptr), "no verdict", "t"});
  checkRoundTrip(WorktreeBuilt{"best", "beef", "b1", "c1", "t"});
}

TEST_CASE("ledger events: a field of the wrong type is an error that names the event, its seq and the field") {
  LedgerEvent e = eventOf(RoundValidated{}, 12);
  e.payload["decision"] = 5;
  CHECK(errorOf(e) == "ledger seq 12 (round_validated): field 'decision': expected a string");
  e.payload["decision"] = "MAYBE";
  CHECK(errorOf(e) ==
        "ledger seq 12 (round_validated): field 'decision': expected ACCEPT, ACCEPT_WITH_NOTE, ROLLBACK or AUDIT");

  LedgerEvent term = eventOf(TerminationChecked{}, 9);
  term.payload["conditions"] = json::array({json{{"id", "T1"}, {"met", false}}, json{{"id", "T2"}, {"met", "yes"}}});
  CHECK(errorOf(term) == "ledger seq 9 (termination_checked): field 'conditions[1].met': expected true or false");

  LedgerEvent decided = eventOf(RoundDecided{}, 3);
  decided.payload["status"] = "MAYBE";
  CHECK(errorOf(decided).find("field 'status': expected a round status") != std::string::npos);
  decided = eventOf(RoundDecided{}, 3);
  decided.payload.erase("record");
  CHECK(errorOf(decided).find("ledger seq 3 (round_decided): field 'record': expected the round's record") == 0);

  LedgerEvent bench = eventOf(BenchFinished{}, 4);
  bench.payload["kind"] = "medium";
  CHECK(errorOf(bench) == "ledger seq 4 (bench_finished): field 'kind': expected \"full\" or \"quick\"");

  LedgerEvent unknown = eventOf(TipAppended{}, 5);
  unknown.type = "tip_exploded";
  CHECK(errorOf(unknown).find("ledger seq 5 (tip_exploded): unknown event type") == 0);
}

TEST_CASE("ledger events: an absent key decodes to its default, as the readers before the types read it") {
  LedgerEvent e;
  e.seq = 1;
  e.type = TestsFinished::kType;
  e.payload = json{{"ok", true}};
  const TypedEvent t = decoded(e);
  REQUIRE(t.as<TestsFinished>());
  CHECK(t.as<TestsFinished>()->ok);
  CHECK(t.as<TestsFinished>()->fingerprint.empty());
  CHECK(t.as<TestsFinished>()->at.empty());
}

TEST_CASE("ledger events: decodeAll stops at the first line that does not decode") {
  std::vector<LedgerEvent> events{eventOf(TipAppended{"t"}, 1), eventOf(TipsRead{}, 2)};
  events[1].payload["count"] = "three";
  auto all = decodeAll(events);
  REQUIRE(std::holds_alternative<CodecError>(all));
  CHECK(std::get<CodecError>(all).message == "ledger seq 2 (tips_read): field 'count': expected an integer");
  events.pop_back();
  auto ok = decodeAll(events);
  REQUIRE(std::holds_alternative<std::vector<TypedEvent>>(ok));
  CHECK(std::get<std::vector<TypedEvent>>(ok).size() == 1);
}

}  // namespace kopt::campaign
