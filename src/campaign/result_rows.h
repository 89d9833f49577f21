#pragma once
// The rows a measurement's result shows per shape and for the aggregate, and the gate's reasons,
// as run_quick_bench, validate_round and final_acceptance return them.
#include <vector>

#include "campaign/engine_session.h"
#include "campaign/engine_types.h"
#include "campaign/measurement.h"
#include "measure/statistics.h"

namespace kopt::campaign::detail {

// Result rows from the gate's verdicts and the pairs.
std::vector<ShapeRow> shapeRows(const AssembledRuns& assembled, const std::vector<PairRun>& pairs,
                                const measure::GateResult* gate);
AggregateRow aggregateRow(const OpenCampaign& session, const std::vector<ShapeRow>& rows,
                          const measure::GateResult* gate);
std::vector<GateReason> gateReasons(const measure::GateResult& gate);

}  // namespace kopt::campaign::detail
