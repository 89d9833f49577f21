// BASELINE's harness check through the engine, on the fake kernel's bench worker (bench.py
// --serve, synthetic times): an honest harness passes, an A/A bias alarm is confirmed on fresh
// worker sessions before it refuses, and a bias that reads again refuses the harness.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"
#include "util/text.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
using testing::readText;

// The worker campaign at its run_baseline call, with `gate` lines added to the manifest's gate block.
std::string withGateLines(FakeWorkspace& ws, CampaignEngine& engine, const std::string& config,
                         const std::string& gate = "") {
  return testing::workerCampaignAtBaselineCall(
      ws, engine, config, [&](std::string& manifest) { manifest.insert(manifest.find("gate:\n") + 6, gate); });
}

}  // namespace

TEST_CASE("harness check: an honest worker harness passes without an alarm") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = withGateLines(ws, engine, "speed=100\n");
  auto baseline = engine.runBaseline(dir, {});
  REQUIRE(baseline.value().harness.size() == 5);  // one line per shape, then the price of a round
  CHECK(baseline.value().harness[4].rfind("expected validate_round: about ", 0) == 0);
  CHECK(baseline.value().harness[4].find("a neutral round on unchanged shapes takes 1 look(s)") != std::string::npos);
  CHECK_FALSE(testing::anyStartsWith(baseline.value().harness, "not confirmed"));
  CHECK(readText(std::filesystem::path(dir) / "ledger.jsonl").find("\"aa_bias_alarm\":[]") != std::string::npos);
}

TEST_CASE("harness check: gate.aa_sessions sets the A/A's worker sessions, and so the SE floor's degrees of freedom") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = withGateLines(ws, engine, "speed=100\n", "  aa_sessions: 4\n");
  auto baseline = engine.runBaseline(dir, {});
  REQUIRE(baseline.ok());
  for (const auto& line : baseline.value().harness)
    if (line.rfind("s", 0) == 0) CHECK(line.find(" over 4 sessions") != std::string::npos);
  const auto runs = std::filesystem::path(dir) / "rounds" / "round-1" / "artifacts" / "runs";
  CHECK(std::filesystem::exists(runs / "r1-aa-1-s3-timing.json"));
  CHECK_FALSE(std::filesystem::exists(runs / "r1-aa-1-s4-timing.json"));
}

TEST_CASE("harness check: a bias alarm that fresh sessions do not repeat is recorded, not refused") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  // The candidate-order worker reads 3% slower in the first three sessions only: what a chance
  // reading looks like to the check.
  const std::string dir = withGateLines(ws, engine, "speed=100\naa_bias=0.03\naa_bias_sessions=3\n");
  auto baseline = engine.runBaseline(dir, {});
  CHECK(testing::anyStartsWith(baseline.value().harness, "not confirmed by 3 fresh sessions"));
  const std::string ledger = readText(std::filesystem::path(dir) / "ledger.jsonl");
  CHECK(ledger.find("\"aa_bias_alarm\":[\"fix the harness: s1 reads") != std::string::npos);
}

TEST_CASE("harness check: a bias that fresh sessions read again refuses the harness") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = withGateLines(ws, engine, "speed=100\naa_bias=0.03\n");
  auto baseline = engine.runBaseline(dir, {});
  const Refusal& r = baseline.refusal();
  CHECK(testing::name(r.code) == testing::name(RefusalCode::BaselineBroken));
  REQUIRE_FALSE(r.details.empty());
  CHECK(r.details[0] == "the A/A read a bias, and fresh sessions read it again:");
  CHECK(util::join(r.details, "\n").find("fix the harness: s1 reads") != std::string::npos);
  CHECK(testing::name(engine.campaignStatus(dir).value().phase) == testing::name(Phase::Baseline));
}

TEST_CASE("harness check: a shape that more sessions would decide gets them, up to the most") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  // Sessions 1.2% apart: from 3 sessions (2 degrees of freedom) the last look could show only
  // about 5.2%; a fourth session decides it.
  const std::string dir = withGateLines(ws, engine, "speed=100\nsession_sd=0.012\n");
  auto baseline = engine.runBaseline(dir, {});
  REQUIRE(baseline.ok());
  CHECK(testing::anyStartsWith(baseline.value().harness, "the A/A ran 4 worker sessions, not 3"));
  const auto runs = std::filesystem::path(dir) / "rounds" / "round-1" / "artifacts" / "runs";
  CHECK(std::filesystem::exists(runs / "r1-aa-1-s3-timing.json"));
  CHECK_FALSE(std::filesystem::exists(runs / "r1-aa-1-s4-timing.json"));
  const std::string ledger = readText(std::filesystem::path(dir) / "ledger.jsonl");
  CHECK(ledger.find("\"process_df\":3") != std::string::npos);
  CHECK(ledger.find("\"tolerance\":0.05") != std::string::npos);
}

TEST_CASE("harness check: a plan no round could be accepted on is refused at BASELINE with the fix named") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  // Sessions 3% apart: not even 8 sessions and 3 looks show 5%.
  const std::string dir = withGateLines(ws, engine, "speed=100\nsession_sd=0.03\n");
  auto baseline = engine.runBaseline(dir, {});
  const Refusal& r = baseline.refusal();
  CHECK(testing::name(r.code) == testing::name(RefusalCode::BaselineBroken));
  const std::string details = util::join(r.details, "\n");
  INFO(details);
  CHECK(details.find("fix the plan: s1 cannot be shown within the regression tolerance 5.00% in 2 looks") !=
        std::string::npos);  // the test manifest's plan: 2 looks
  CHECK(details.find("gate.regression_pct: ") != std::string::npos);
  CHECK(details.find("expected validate_round: about ") != std::string::npos);
  // It ran the most sessions first: an estimate from 3 may be high by chance.
  const auto runs = std::filesystem::path(dir) / "rounds" / "round-1" / "artifacts" / "runs";
  CHECK(std::filesystem::exists(runs / "r1-aa-1-s7-timing.json"));
  CHECK_FALSE(std::filesystem::exists(runs / "r1-aa-1-s8-timing.json"));
  CHECK(testing::name(engine.campaignStatus(dir).value().phase) == testing::name(Phase::Baseline));
}

}  // namespace kopt::campaign
