#include "campaign/campaign_paths.h"

namespace kopt::campaign {
namespace fs = std::filesystem;

std::string roundDirName(int n) { return "round-" + std::to_string(n); }

CampaignPaths::CampaignPaths(fs::path campaignDir) : root(std::move(campaignDir)) {
  manifest = root / "manifest.yaml";
  state = root / "state.json";
  ledger = root / "ledger.jsonl";
  lock = root / ".kopt.lock";
  logsDir = root / "logs";
  optimizeLog = logsDir / "optimize.md";
  performanceTrend = logsDir / "performance_trend.md";
  profilesDir = root / "profiles";
  roundsDir = root / "rounds";
  report = root / "report.md";
  reportMetricSvg = root / "report-metric.svg";
  reportHeatmapSvg = root / "report-heatmap.svg";
  worktreesDir = root / "worktrees";
  bestWorktree = worktreesDir / "best";
  quickHarness = root / "quick_test_bench.py";
  quickBaselineLog = root / "quick_baseline.log";
  finalDir = root / "final";
}

RoundPaths CampaignPaths::round(int n) const {
  RoundPaths r;
  r.number = n;
  r.dir = roundsDir / roundDirName(n);
  r.summary = r.dir / "summary.md";
  r.hypothesis = r.dir / "hypothesis.json";
  r.decision = r.dir / "decision.json";
  r.kernelSnapshot = r.dir / "kernel_snapshot";
  r.artifacts = r.dir / "artifacts";
  r.benchmarkCsv = r.artifacts / "benchmark.csv";
  r.samples = r.artifacts / "benchmark.samples.jsonl";
  r.buildLog = r.artifacts / "build.log";
  r.testLog = r.artifacts / "test.log";
  r.quickValidationLog = r.artifacts / "quick_validation.log";
  return r;
}

void RoundPaths::createLayout() const {
  fs::create_directories(kernelSnapshot);
  fs::create_directories(artifacts);
}

void CampaignPaths::createLayout() const {
  for (const auto& d : {root, logsDir, profilesDir, roundsDir, worktreesDir}) {
    fs::create_directories(d);
  }
}

fs::path defaultCampaignDir(const fs::path& repo, const std::string& name) {
  return repo / ".kopt" / "campaigns" / name;
}

}  // namespace kopt::campaign
