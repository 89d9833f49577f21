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
  CHECK(baseline.value().harness.size() == 4);  // one line per shape
  CHECK_FALSE(testing::anyStartsWith(baseline.value().harness, "not confirmed"));
  CHECK(readText(std::filesystem::path(dir) / "ledger.jsonl").find("\"aa_bias_alarm\":[]") != std::string::npos);
}

TEST_CASE("harness check: gate.aa_sessions sets the A/A's worker sessions, and so the SE floor's degrees of freedom") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = withGateLines(ws, engine, "speed=100\n", "  aa_sessions: 4\n");
  auto baseline = engine.runBaseline(dir, {});
  REQUIRE(baseline.ok());
  for (const auto& line : baseline.value().harness) CHECK(line.find(" over 4 sessions") != std::string::npos);
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

}  // namespace kopt::campaign
