#pragma once
// The contract's Final Report (loop contract section 3 "REPORT"), rendered from a
// CampaignHistory: baseline vs best, accepted / rolled-back counts, effective and ineffective
// directions, the next three steps, the real-training audit (S_real / W_real / R_real, inflation
// gap, verdict), prediction accuracy, and per-shape baseline -> final with % of peak when known.
#include <string>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report {

struct MarkdownOptions {
  // File names of the charts beside report.md; empty: no chart links.
  std::string metricChartFile = "report-metric.svg";
  std::string heatmapFile = "report-heatmap.svg";
};

// The "## Final Report" section alone, for appending to logs/optimize.md.
std::string renderFinalReportSection(const CampaignHistory& history, const MarkdownOptions& options = {});

// report.md: a title and the campaign's facts, then the Final Report section.
std::string renderReportMarkdown(const CampaignHistory& history, const MarkdownOptions& options = {});

// The three next steps the report lists: the agent's own first, then ones kopt derives from the
// data (weakest shape, stagnation, bounded W1 gains, inconclusive shapes), never fewer than three.
std::vector<std::string> nextThreeSteps(const CampaignHistory& history);

}  // namespace kopt::campaign::report
