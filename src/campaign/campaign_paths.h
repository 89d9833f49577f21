#pragma once
// Every path of a campaign directory (loop-contract section 3, formats.md), in one place so no
// code spells "rounds/round-" twice.
#include <filesystem>
#include <string>

namespace kopt::campaign {

struct RoundPaths {
  int number = 0;
  std::filesystem::path dir;             // rounds/round-N
  std::filesystem::path summary;         // summary.md
  std::filesystem::path hypothesis;      // hypothesis.json
  std::filesystem::path decision;        // decision.json
  std::filesystem::path kernelSnapshot;  // kernel_snapshot/
  std::filesystem::path artifacts;       // artifacts/
  std::filesystem::path benchmarkCsv;    // artifacts/benchmark.csv
  std::filesystem::path samples;         // artifacts/benchmark.samples.jsonl
  std::filesystem::path buildLog;        // artifacts/build.log
  std::filesystem::path testLog;         // artifacts/test.log
  std::filesystem::path quickValidationLog;  // artifacts/quick_validation.log
  void createLayout() const;             // dir, kernel_snapshot/, artifacts/
};

struct CampaignPaths {
  CampaignPaths() = default;
  explicit CampaignPaths(std::filesystem::path campaignDir);

  std::filesystem::path root;
  std::filesystem::path manifest;          // manifest.yaml
  std::filesystem::path state;             // state.json
  std::filesystem::path ledger;            // ledger.jsonl
  std::filesystem::path lock;              // .kopt.lock: the lock's fallback (detail::campaignLockPath)
  std::filesystem::path logsDir;           // logs/
  std::filesystem::path optimizeLog;       // logs/optimize.md
  std::filesystem::path performanceTrend;  // logs/performance_trend.md
  std::filesystem::path profilesDir;       // profiles/
  std::filesystem::path roundsDir;         // rounds/
  std::filesystem::path report;            // report.md
  std::filesystem::path reportMetricSvg;   // report-metric.svg
  std::filesystem::path reportHeatmapSvg;  // report-heatmap.svg
  std::filesystem::path worktreesDir;      // worktrees/
  std::filesystem::path bestWorktree;      // worktrees/best (git worktree of the last accepted commit)
  std::filesystem::path quickHarness;      // quick_test_bench.py (the copied-in quick harness)
  std::filesystem::path quickBaselineLog;  // quick_baseline.log
  std::filesystem::path finalDir;          // final/ (final acceptance artifacts)

  RoundPaths round(int n) const;
  // Directories: root, logs/, profiles/, rounds/, worktrees/. Idempotent. Throws filesystem_error.
  void createLayout() const;
};

// <repo>/.kopt/campaigns/<name>
std::filesystem::path defaultCampaignDir(const std::filesystem::path& repo, const std::string& name);
// "round-7"
std::string roundDirName(int n);

}  // namespace kopt::campaign
