#pragma once
// The primary metric per round as an SVG line chart: the current best as a step line, the A/A
// noise band around it shaded, every round's measured aggregate as a marker whose shape and
// colour say what happened to it (baseline, accepted, accepted with a note, rolled back), rounds
// without a valid aggregate (a correctness failure) marked on the axis. Axis labels and a legend
// are part of the picture, so the file reads on its own.
#include <string>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report {

std::string renderMetricChartSvg(const CampaignHistory& history);

}  // namespace kopt::campaign::report
