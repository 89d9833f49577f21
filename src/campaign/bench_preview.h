#pragma once
// run_quick_bench's measurement, judged: the statistical gate over all of its pairs at once, as
// validate_round's first look would judge them. It is a preview, never a verdict: the agent sees
// it and may measure again, so validate_round always measures fresh pairs
// (docs/campaign-engine.md, validate_round's order).
#include <string>
#include <vector>

#include "campaign/ledger_events.h"
#include "campaign/measurement.h"
#include "measure/statistics.h"

namespace kopt::campaign {

// The gate's input for one measurement judged in one look: the pairs as assembled, the campaign's
// calibration, no re-measurement and no chain check. (final_acceptance judges its measurement the
// same way; validate_round's sequential looks build theirs in validation_looks.cpp.)
measure::GateInput singleLookGateInput(const AssembledRuns& assembled, const measure::Calibration& calibration);

struct BenchPreview {
  AssembledRuns assembled;
  measure::GateResult gate;
};

// The pairs assembled against the frozen CSV header and the expected shape set, then judged.
BenchPreview previewBench(const std::vector<PairRun>& runs, const std::string& frozenHeader,
                          const std::vector<std::string>& expectedLabels, const measure::Calibration& calibration,
                          const measure::GatePolicy& policy);

// The ledger's account of a bench: its tag, the tree it measured, its usable pairs, the preview.
BenchFinished benchFinished(const BenchPreview& preview, const std::string& tag, const std::string& fingerprint,
                            bool full);

}  // namespace kopt::campaign
