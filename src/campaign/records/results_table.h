#pragma once
// The per-shape results table shared by summary.md and optimize.md's Baseline section.
#include <string>
#include <vector>

#include "campaign/records/record_types.h"

namespace kopt::campaign::records {

// "| Label | M | N | K | Check | Forward TFLOPS | ... | Primary | Δ vs best | Verdict |".
// The delta and verdict columns are omitted when `withComparison` is false (the baseline).
std::string renderResultsTable(const std::vector<ShapeResult>& results, const std::string& primaryMetric,
                               bool withComparison);
// "301.250" / "—" (3 decimals; small CPU values keep 4 significant digits: "0.001234").
std::string formatMetric(std::optional<double> v);

}  // namespace kopt::campaign::records
