#include "campaign/pending_step.h"

#include <doctest/doctest.h>

#include "campaign/state_json_fixture.h"
#include "campaign/state_store.h"

using namespace kopt::campaign;
using json = nlohmann::json;

namespace {

PendingStep decoded(const std::string& step, const json& detail) {
  PendingStep p;
  p.step = step;
  const auto error = decodePendingDetail(detail, p);
  REQUIRE_MESSAGE(!error, *error);
  return p;
}

std::string decodeError(const std::string& step, const json& detail) {
  PendingStep p;
  p.step = step;
  return decodePendingDetail(detail, p).value_or("");
}

}  // namespace

TEST_CASE("pending step: state.json written before the step was typed reads and writes back byte for byte") {
  for (const auto& file : testing::stateFilesWrittenBeforeTypedSteps()) {
    const std::string& text = file.second;
    CAPTURE(file.first);
    auto loaded = campaignStateFromJson(json::parse(text));
    REQUIRE_MESSAGE(std::holds_alternative<CampaignState>(loaded), std::get<std::string>(loaded));
    const CampaignState& s = std::get<CampaignState>(loaded);
    REQUIRE(s.pending);
    CHECK(pendingDetailKindFor(s.pending->step).index() == s.pending->detail.index());
    CHECK(toJson(s).dump(2) + "\n" == text);
  }
}

TEST_CASE("pending step: each step name implies its kind of detail") {
  CHECK(std::holds_alternative<PendingCommand>(pendingDetailKindFor("build")));
  CHECK(std::holds_alternative<PendingCommand>(pendingDetailKindFor("tests")));
  for (const char* step : {"baseline", "bench", "validate", "final"}) {
    CHECK(std::holds_alternative<PendingMeasurement>(pendingDetailKindFor(step)));
  }
  CHECK(std::holds_alternative<PendingDecision>(pendingDetailKindFor("decide")));
}

TEST_CASE("pending step: a measurement's tags to discard") {
  const PendingStep bench = decoded("bench", {{"tag", "r2-quick-1"}, {"after_seq", 9}});
  CHECK(bench.afterSeq == 9);
  const auto& m = std::get<PendingMeasurement>(bench.detail);
  CHECK(m.tagsToDiscard() == std::vector<std::string>{"r2-quick-1"});
  CHECK(m.artifacts.empty());
  const PendingMeasurement baseline{"r1-aa-1", {"r1-aa-1", "r1-quick-1"}, ""};
  CHECK(baseline.tagsToDiscard() == std::vector<std::string>{"r1-aa-1", "r1-quick-1"});
}

TEST_CASE("pending step: kopt's own bookkeeping of the wrong type is an error that names the field") {
  CHECK(decodeError("bench", {{"tag", 3}}) == "field 'pending.detail.tag' must be a string");
  CHECK(decodeError("baseline", {{"tags", "r1-aa-1"}}) == "field 'pending.detail.tags' must be a list of strings");
  CHECK(decodeError("final", {{"artifacts", json::array()}}) == "field 'pending.detail.artifacts' must be a string");
  CHECK(decodeError("build", {{"after_seq", -1}}) ==
        "field 'pending.detail.after_seq' must be a non-negative whole number");
  CHECK(decodeError("tests", json::array()) == "field 'pending.detail' must be an object");
  // Through state.json, the error names the file's field too.
  auto j = toJson(CampaignState{});
  j["pending"] = {{"round", 2}, {"step", "bench"}, {"started_at", ""}, {"detail", {{"tag", false}}}};
  auto loaded = campaignStateFromJson(j);
  REQUIRE(std::holds_alternative<std::string>(loaded));
  CHECK(std::get<std::string>(loaded) == "state.json: field 'pending.detail.tag' must be a string");
}

TEST_CASE("pending step: a forged decision's fields read as values the ledger check refuses, not as errors") {
  // unbackedDecisionReason() refuses such a marker by name and the ledger records it; an
  // unreadable state.json would only drop it.
  const PendingStep forged = decoded("decide", {{"accept", "yes"},
                                                {"lineage_head", 42},
                                                {"declared", {1, "a.cpp"}},
                                                {"scope", "kernel"},
                                                {"record", "ACCEPTED"},
                                                {"git_done", "true"}});
  const PendingDecision& d = *forged.decision();
  CHECK_FALSE(d.accept);
  CHECK(d.lineageHead.empty());
  CHECK(d.declared == std::vector<std::string>{"1", "a.cpp"});
  CHECK(d.scope.empty());
  CHECK_FALSE(d.record);
  CHECK_FALSE(d.git);
  CHECK_FALSE(d.snapshotDone);
}

TEST_CASE("pending step: a decision's sub-steps are written as they complete") {
  PendingStep p;
  p.step = "decide";
  p.afterSeq = 11;
  PendingDecision d;
  d.accept = false;
  d.lineageHead = "abc";
  d.record = json{{"number", 3}};
  p.detail = d;
  json j = pendingDetailToJson(p);
  CHECK(j == json{{"accept", false},  {"lineage_head", "abc"}, {"scope", json::array()}, {"declared", json::array()},
                  {"record", {{"number", 3}}}, {"after_seq", 11}});
  d.snapshotDone = true;
  d.git = GitApplied{"abc", {"k.cpp"}};
  p.detail = d;
  j = pendingDetailToJson(p);
  CHECK(j.value("snapshot_done", false));
  CHECK(j.value("git_done", false));
  CHECK(j["restored"] == json{"k.cpp"});
  CHECK((decoded("decide", j).detail == p.detail));
}
