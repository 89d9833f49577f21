#pragma once
// A round's record as the ledger holds it: found again, built from a measurement, and turned into
// the values of the trend table's row.
#include <optional>
#include <vector>

#include "campaign/engine_session.h"
#include "campaign/measurement.h"
#include "measure/statistics.h"

namespace kopt::campaign::detail {

// Values of the trend row (aligned with trendColumnsFor(schema).valueHeaders) from a record.
std::vector<std::optional<double>> trendValues(const Manifest& manifest, const records::RoundRecord& record);

// Finds the record of a round in the ledger (baseline_recorded / round_decided payloads).
std::optional<records::RoundRecord> roundRecord(const OpenCampaign& session, int round);

// Builds the shared parts of a RoundRecord (results with deltas vs best, aggregate vs best and
// baseline) from measured medians.
records::RoundRecord measuredRecord(const OpenCampaign& session, int round, const std::vector<PairRun>& pairs,
                                    const AssembledRuns& assembled, const measure::GateResult* gate, bool full);

}  // namespace kopt::campaign::detail
