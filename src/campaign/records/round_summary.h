#pragma once
// rounds/round-N/summary.md with every section of the contract: Hypothesis, Single change,
// Results (per shape), Aggregate, Decision, Attribution, Next direction, Rollback Analysis (rolled
// back only), Real-training transfer check.
#include <filesystem>
#include <string>

#include "campaign/records/record_types.h"

namespace kopt::campaign::records {

std::string renderRoundSummary(const RoundRecord& round);
// Written atomically (a summary is written once per round, after the decision).
void writeRoundSummary(const std::filesystem::path& summaryMd, const RoundRecord& round);

}  // namespace kopt::campaign::records
