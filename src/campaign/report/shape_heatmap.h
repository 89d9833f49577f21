#pragma once
// Shapes x rounds as an SVG heatmap of each shape's gain against the baseline, on a diverging
// colour scale centred on 0 (blue better, red worse), with the value printed in the cell when it
// fits, FAIL / not-measured cells in grey, the round's outcome marked above its column, and a
// colour legend.
#include <string>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report {

std::string renderShapeHeatmapSvg(const CampaignHistory& history);

}  // namespace kopt::campaign::report
