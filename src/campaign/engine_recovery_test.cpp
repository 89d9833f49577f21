// Restart safety: the engine dies (an injected fault: the call aborts with an exception, leaving
// the disk exactly as a kill at that point would) at ten points of a round; a fresh engine picks
// the campaign up, and the records match those of an uninterrupted run (up to measured numbers
// and time stamps).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

#include <nlohmann/json.hpp>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"
#include "campaign/ledger.h"
#include "util/text.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
using testing::readText;
namespace fs = std::filesystem;

struct Step {
  std::string name;
  std::string event;  // the ledger event that says the step happened
  std::function<bool(CampaignEngine&, const std::string&)> run;
};

std::vector<std::string> eventTypes(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : Ledger(fs::path(dir) / "ledger.jsonl").readAll()) out.push_back(e.type);
  return out;
}

std::string normalized(std::string text) {
  // Numbers and time stamps differ between runs (fresh seeds, clocks); the structure must not.
  text = std::regex_replace(text, std::regex("\\b(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\\b"), "<sha>");
  text = std::regex_replace(text, std::regex("[-+]?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?"), "#");
  return text;
}

std::vector<Step> roundSteps() {
  std::vector<Step> steps;
  steps.push_back({"begin_round", "round_begun", [](CampaignEngine& e, const std::string& dir) {
                     BeginRoundRequest b;
                     b.campaignDir = dir;
                     b.hypothesis.statement = "I expect more TFLOPS because the knob is faster";
                     b.hypothesis.change = "speed knob";
                     b.hypothesis.expected.sizePct = 20;
                     b.hypothesis.files = {"kernel/config.ini"};
                     return e.beginRound(b).ok();
                   }});
  steps.push_back({"rebuild_kernel", "build_finished",
                   [](CampaignEngine& e, const std::string& dir) { return e.rebuildKernel({dir}, {}).ok(); }});
  steps.push_back({"run_tests", "tests_finished",
                   [](CampaignEngine& e, const std::string& dir) { return e.runTests({dir}, {}).ok(); }});
  steps.push_back({"run_quick_bench", "bench_finished",
                   [](CampaignEngine& e, const std::string& dir) { return e.runQuickBench({dir, false, 3}, {}).ok(); }});
  steps.push_back({"validate_round", "round_validated",
                   [](CampaignEngine& e, const std::string& dir) { return e.validateRound({dir, false}, {}).ok(); }});
  steps.push_back({"accept_or_revert", "round_decided", [](CampaignEngine& e, const std::string& dir) {
                     AcceptOrRevertRequest a;
                     a.campaignDir = dir;
                     a.attribution = "the knob";
                     a.nextDirection = "tiles";
                     return e.acceptOrRevert(a, {}).ok();
                   }});
  steps.push_back({"termination_check", "termination_checked", [](CampaignEngine& e, const std::string& dir) {
                     TerminationRequest t;
                     t.campaignDir = dir;
                     return e.terminationCheck(t).ok();
                   }});
  return steps;
}

struct Outcome2 {
  std::vector<std::string> events;
  std::string summary, decisionKeys, trend, optimizeMarkers, gitSubjects, kernel;
};

// A campaign of the fake kernel through its baseline (an engine of its own, then gone).
std::string campaignAfterBaseline(FakeWorkspace& ws) {
  CampaignEngine engine(ws.options());
  DefineTargetRequest d;
  d.repoPath = "repo";
  d.manifestPath = "manifest.yaml";
  d.created = "2026-04-12 09:30";
  auto defined = engine.defineTarget(d);
  REQUIRE(defined.ok());
  const std::string dir = defined.value().campaignDir;
  REQUIRE(engine.confirmTarget({dir, true, "tester", "argument"}).ok());
  REQUIRE(engine.prepareEnvironment(dir).ok());
  REQUIRE(engine.readTips(dir).ok());
  REQUIRE(engine.runBaseline(dir, {}).ok());
  return dir;
}

// Runs baseline + one accepted round; `fault` (may be empty) fires once.
Outcome2 runScenario(const std::string& fault) {
  FakeWorkspace ws;
  const std::string dir = campaignAfterBaseline(ws);
  ws.faults = {fault};
  bool fired = false;
  for (const auto& step : roundSteps()) {
    if (step.name == "rebuild_kernel") ws.setConfig("speed=130\n");
    for (int attempt = 0; attempt < 3; ++attempt) {
      // Every attempt is a fresh engine: a restarted server.
      CampaignEngine engine(ws.options());
      const auto before = eventTypes(dir);
      bool ok = false;
      try {
        ok = step.run(engine, dir);
      } catch (const testing::InjectedCrash& c) {
        fired = true;
        MESSAGE("crashed in " << step.name << " at " << c.point);
      }
      if (ok) break;
      // Did the step land in the ledger before the crash? Then it is done.
      const auto after = eventTypes(dir);
      if (after.size() > before.size() && after.back() == step.event) break;
      // A decision whose git step failed is finished by the next call.
    }
  }
  if (!fault.empty()) CHECK_MESSAGE(fired, "the fault point " << fault << " was never reached");
  {
    // One more call so that a crash after the last append is replayed (records written).
    CampaignEngine engine(ws.options());
    TerminationRequest t;
    t.campaignDir = dir;
    t.userStop = true;
    REQUIRE(engine.terminationCheck(t).ok());
  }
  Outcome2 out;
  out.events = eventTypes(dir);
  out.summary = normalized(readText(fs::path(dir) / "rounds/round-2/summary.md"));
  out.decisionKeys = normalized(readText(fs::path(dir) / "rounds/round-2/decision.json"));
  out.trend = normalized(readText(fs::path(dir) / "logs/performance_trend.md"));
  const std::string optimize = readText(fs::path(dir) / "logs/optimize.md");
  std::size_t markers = 0;
  for (std::size_t p = optimize.find("kopt:event"); p != std::string::npos; p = optimize.find("kopt:event", p + 1)) ++markers;
  out.optimizeMarkers = std::to_string(markers);
  out.gitSubjects = ws.git("log --format=%s");
  out.kernel = readText(ws.repo / "kernel/config.ini");
  CHECK(Ledger(fs::path(dir) / "ledger.jsonl").verify().ok());
  CHECK(ws.git("status --porcelain kernel").empty());
  return out;
}

}  // namespace

TEST_CASE("recovery: a crash at any of ten points of a round resumes with the same records") {
  const Outcome2 reference = runScenario("");
  REQUIRE(reference.kernel == "speed=130\n");
  const std::vector<std::string> points = {
      "begin:after-hypothesis",
      "record:after-append:build_finished",
      "tests:after-run",
      "bench:after-pairs",
      "validate:after-pairs",
      "record:after-append:round_validated",
      "decide:after-pending",
      "decide:after-snapshot",
      "decide:after-commit",
      "record:after-append:round_decided",
      "record:after-records:round_decided",
  };
  for (const auto& point : points) {
    CAPTURE(point);
    const Outcome2 got = runScenario(point);
    CHECK(got.events == reference.events);
    CHECK(got.summary == reference.summary);
    CHECK(got.decisionKeys == reference.decisionKeys);
    CHECK(got.trend == reference.trend);
    CHECK(got.optimizeMarkers == reference.optimizeMarkers);
    CHECK(got.gitSubjects == reference.gitSubjects);
    CHECK(got.kernel == reference.kernel);
  }
}

TEST_CASE("recovery: a commit that only borrows kopt's message is not adopted (docs/integrity.md, class 5)") {
  FakeWorkspace ws;
  const std::string dir = campaignAfterBaseline(ws);
  const auto steps = roundSteps();
  for (const auto& step : steps) {
    if (step.name == "accept_or_revert") break;
    if (step.name == "rebuild_kernel") ws.setConfig("speed=130\n");
    CampaignEngine engine(ws.options());
    REQUIRE_MESSAGE(step.run(engine, dir), step.name);
  }
  // kopt dies in accept_or_revert after the snapshot, before its commit.
  ws.faults = {"decide:after-snapshot"};
  {
    CampaignEngine engine(ws.options());
    CHECK_THROWS_AS(steps[5].run(engine, dir), testing::InjectedCrash);
  }
  // The agent commits another kernel under the message kopt was about to use (state.json shows
  // it), then puts the validated file back, so the working tree still matches the validation.
  const auto state = nlohmann::json::parse(readText(fs::path(dir) / "state.json"));
  const std::string message = state["pending"]["detail"]["message"].get<std::string>();
  REQUIRE_FALSE(message.empty());
  testing::writeText(fs::path(dir) / "msg.txt", message);
  ws.setConfig("speed=999\n");
  ws.git("-c user.name=a -c user.email=a@example.com commit -q -a -F '" + (fs::path(dir) / "msg.txt").string() + "'");
  const std::string forged = ws.git("rev-parse HEAD");
  ws.setConfig("speed=130\n");
  REQUIRE(ws.git("log -1 --format=%s") == message.substr(0, message.find('\n')) + "\n");

  CampaignEngine engine(ws.options());
  AcceptOrRevertRequest a;
  a.campaignDir = dir;
  a.attribution = "the knob";
  a.nextDirection = "tiles";
  auto r = engine.acceptOrRevert(a, {});
  REQUIRE(r.refused());
  CHECK((r.refusal().code == RefusalCode::HeadMoved));
  CHECK(r.refusal().why.find("not the validated tree") != std::string::npos);
  CHECK(r.refusal().why.find("kernel/config.ini differs") != std::string::npos);
  // Nothing was decided, and the forged commit is nowhere in the records.
  const auto events = eventTypes(dir);
  CHECK(std::count(events.begin(), events.end(), "round_decided") == 0);
  CHECK(readText(fs::path(dir) / "ledger.jsonl").find(forged.substr(0, 40)) == std::string::npos);

  // Undone as the refusal says, the same call finishes the decision with kopt's own commit.
  const std::string parent = ws.git("rev-parse HEAD^");
  ws.git("reset -q --soft " + parent.substr(0, 40));
  auto done = engine.acceptOrRevert(a, {});
  REQUIRE(done.ok());
  CHECK(done.value().commit != forged.substr(0, 40));
  CHECK(ws.git("show HEAD:kernel/config.ini") == "speed=130\n");
}

TEST_CASE("recovery: a torn last ledger line is cut and reported, not taken for tampering") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  DefineTargetRequest d;
  d.repoPath = "repo";
  d.manifestPath = "manifest.yaml";
  auto defined = engine.defineTarget(d);
  REQUIRE(defined.ok());
  const std::string dir = defined.value().campaignDir;
  {
    std::ofstream out(fs::path(dir) / "ledger.jsonl", std::ios::app);
    out << "{\"seq\":2,\"type\":\"target_conf";
  }
  auto confirmed = engine.confirmTarget({dir, true, "tester", "argument"});
  REQUIRE_MESSAGE(confirmed.ok(), confirmed.errorText());
  CHECK(Ledger(fs::path(dir) / "ledger.jsonl").verify().ok());
}

}  // namespace kopt::campaign
