#pragma once
// A measurement of the campaign as the baseline froze it (the plan, the shapes, the header, the
// calibration and the blocks per look) and the files each measurement leaves: its index, its tag's
// ordinal, the round's published benchmark CSV.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/engine_session.h"
#include "campaign/measurement.h"
#include "measure/statistics.h"

namespace kopt::campaign::detail {

// The measurement plan for a round: quick (quick_command on the representative shapes) or full
// (benchmark_command on all target shapes), candidate = the repository, best = `bestTree`.
MeasurementPlan planFor(const OpenCampaign& session, bool full, const std::filesystem::path& bestTree,
                        const std::filesystem::path& runsDir, const std::string& tag);
// Names the best arm's build in `plan` as the best worktree holding `commit`: bestIdentity (batch
// sizes are remembered under it) and, for workers, bestBuild (what a spare must be started for).
// planFor does it with the best commit; run_baseline with the commit it measures, which becomes
// the best, so the baseline's A/A sessions and the first round's look size batches alike.
void identifyBest(const OpenCampaign& session, MeasurementPlan& plan, const std::string& commit);
// MeasurementPlan::workersOnDevice: a look's two workers, or, where run_baseline starts the workers
// of all its `aaSessions` A/A sessions at once (`aaAtOnce`), two per session.
int workersOnDevice(bool aaAtOnce, int aaSessions);
// Expected labels of a quick / full run (from the baseline event).
std::vector<std::string> expectedLabels(const OpenCampaign& session, bool full);
std::string frozenHeader(const OpenCampaign& session);
std::vector<std::string> representativeShapes(const OpenCampaign& session);
measure::Calibration calibrationOf(const OpenCampaign& session);
// The BASELINE harness check as recorded in the ledger, and the blocks per look it asked for
// (the policy's when the campaign measured process pairs, or was baselined before the check).
nlohmann::json harnessToJson(const measure::HarnessCheck& check);
int blocksPerLookOf(const OpenCampaign& session, const measure::GatePolicy& policy);
// The policy a round is judged by: the manifest's, with the looks sized by the BASELINE's plan
// (blocksPerLookOf), so a plan that asked for more blocks a look than gate.pairs still gets its
// gate.max_looks looks: the block cap is blocks per look x looks, not gate.max_pairs.
measure::GatePolicy policyForPlan(const OpenCampaign& session, measure::GatePolicy policy);

// The number in the next measurement's tag: one more than the round's finished measurements and
// the interrupted ones discarded after a crash (artifacts/discarded-tags), so a bench process
// orphaned by a killed server can never write into the files of a later measurement.
int measurementOrdinal(const OpenCampaign& session, int round);

// The measurement index (artifacts/measurement-<tag>.json).
void writeMeasurementIndex(const std::filesystem::path& path, const std::string& tag, const std::string& fingerprint,
                           bool full, const std::vector<PairRun>& pairs);

// Copies the benchmark CSV/samples of the candidate's first good run to the round's
// artifacts/benchmark.csv (byte copy) and benchmark.samples.jsonl, replacing whatever was there.
void publishBenchmarkCsv(const std::vector<PairRun>& pairs, const RoundPaths& round);

}  // namespace kopt::campaign::detail
