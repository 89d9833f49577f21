#pragma once
// Writes report.md, report-metric.svg and report-heatmap.svg into a campaign directory. Each file
// is written whole or not at all (temp file, fsync, rename), so a crash mid-report leaves the old
// report or the new one, never half of one; writing again replaces them (the report is derived
// from the ledger, so it is safe to regenerate).
#include <filesystem>
#include <string>
#include <vector>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report {

inline constexpr const char* kReportFile = "report.md";
inline constexpr const char* kMetricChartFile = "report-metric.svg";
inline constexpr const char* kHeatmapFile = "report-heatmap.svg";

struct ReportFiles {
  std::filesystem::path markdown;
  std::filesystem::path metricChart;
  std::filesystem::path heatmap;
};

struct WriteReportResult {
  bool ok = false;
  ReportFiles files;
  std::string error;  // which file and why, when !ok
};

WriteReportResult writeReportFiles(const std::filesystem::path& campaignDir, const CampaignHistory& history);

// Writes `contents` to `path` atomically (sibling temp file, fsync, rename, fsync of the directory).
// Returns an empty string on success, else the reason.
std::string writeFileAtomically(const std::filesystem::path& path, const std::string& contents);

}  // namespace kopt::campaign::report
