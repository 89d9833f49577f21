#include "campaign/campaign_paths.h"

#include <doctest/doctest.h>
#include <unistd.h>

using namespace kopt::campaign;
namespace fs = std::filesystem;

TEST_CASE("campaign paths follow the contract's layout") {
  CampaignPaths p("/c");
  CHECK(p.manifest == "/c/manifest.yaml");
  CHECK(p.state == "/c/state.json");
  CHECK(p.ledger == "/c/ledger.jsonl");
  CHECK(p.optimizeLog == "/c/logs/optimize.md");
  CHECK(p.performanceTrend == "/c/logs/performance_trend.md");
  CHECK(p.profilesDir == "/c/profiles");
  CHECK(p.report == "/c/report.md");
  CHECK(p.reportMetricSvg == "/c/report-metric.svg");
  CHECK(p.bestWorktree == "/c/worktrees/best");
  CHECK(p.quickHarness == "/c/quick_test_bench.py");
  auto r = p.round(7);
  CHECK(r.dir == "/c/rounds/round-7");
  CHECK(r.summary == "/c/rounds/round-7/summary.md");
  CHECK(r.hypothesis == "/c/rounds/round-7/hypothesis.json");
  CHECK(r.decision == "/c/rounds/round-7/decision.json");
  CHECK(r.kernelSnapshot == "/c/rounds/round-7/kernel_snapshot");
  CHECK(r.benchmarkCsv == "/c/rounds/round-7/artifacts/benchmark.csv");
  CHECK(r.buildLog == "/c/rounds/round-7/artifacts/build.log");
  CHECK(defaultCampaignDir("/repo", "n") == "/repo/.kopt/campaigns/n");
}

TEST_CASE("createLayout makes the directories, idempotently") {
  auto dir = fs::temp_directory_path() / ("kopt_paths_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CampaignPaths p(dir / "camp");
  p.createLayout();
  p.createLayout();
  CHECK(fs::is_directory(p.logsDir));
  CHECK(fs::is_directory(p.profilesDir));
  CHECK(fs::is_directory(p.roundsDir));
  CHECK(fs::is_directory(p.worktreesDir));
  CHECK_FALSE(fs::exists(p.bestWorktree));  // git worktree add wants to create it itself
  p.round(1).createLayout();
  CHECK(fs::is_directory(p.round(1).kernelSnapshot));
  CHECK(fs::is_directory(p.round(1).artifacts));
  fs::remove_all(dir);
}
