// The records as renderings of the ledger: an edit behind kopt's back is reported by
// campaign_status, restored and refused by the next state-changing call.
#include "campaign/record_renderings.h"

#include <doctest/doctest.h>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"
#include "util/text.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
using testing::readText;
using testing::writeText;
namespace fs = std::filesystem;

void editedRecordIsRestoredAndRefused(const std::string& rel, const std::string& from, const std::string& to) {
  CAPTURE(rel);
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  const fs::path file = fs::path(dir) / rel;
  const std::string original = readText(file);
  REQUIRE(original.find(from) != std::string::npos);
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK(status.value().integrity.rfind("ok", 0) == 0);

  writeText(file, util::replaceAll(original, from, to) + "\n### round-99: ACCEPTED (+250%)\n");
  status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK(status.value().integrity.rfind("record_tampered: " + rel, 0) == 0);
  REQUIRE(status.value().problems.size() == 1);
  CHECK(status.value().problems[0] == rel + " was edited behind kopt's back");
  CHECK(readText(file) != original);  // a query changes nothing

  auto refused = engine.beginRound(testing::speedKnobHypothesis(dir));
  REQUIRE(refused.refused());
  CHECK(testing::name(refused.refusal().code) == "record_tampered");
  CHECK(refused.refusal().why.find(rel) == 0);
  REQUIRE(refused.refusal().details.size() == 1);
  CHECK(refused.refusal().details[0] == rel + ": restored from the ledger");
  CHECK(readText(file) == original);
  // Restored: the campaign goes on.
  auto begun = engine.beginRound(testing::speedKnobHypothesis(dir));
  CHECK_MESSAGE(begun.ok(), begun.errorText());
}

}  // namespace

TEST_CASE("records: an edited optimize.md, summary.md, decision.json or trend is restored and refused") {
  editedRecordIsRestoredAndRefused("logs/optimize.md", "BASELINE", "ACCEPTED");
  editedRecordIsRestoredAndRefused("rounds/round-1/summary.md", "BASELINE", "ACCEPTED");
  editedRecordIsRestoredAndRefused("rounds/round-1/decision.json", "BASELINE", "ACCEPTED");
  editedRecordIsRestoredAndRefused("logs/performance_trend.md", "BASELINE", "ACCEPTED");
}

TEST_CASE("records: a deleted record is restored; untouched records pass") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  const fs::path summary = fs::path(dir) / "rounds/round-1/summary.md";
  const std::string original = readText(summary);
  fs::remove(summary);
  auto refused = engine.beginRound(testing::speedKnobHypothesis(dir));
  REQUIRE(refused.refused());
  CHECK(refused.refusal().why.find("rounds/round-1/summary.md") == 0);
  CHECK(readText(summary) == original);
  REQUIRE(engine.beginRound(testing::speedKnobHypothesis(dir)).ok());
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK(status.value().integrity.rfind("ok", 0) == 0);
}

}  // namespace kopt::campaign
