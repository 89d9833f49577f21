#pragma once
// The A/B measurement inside two persistent bench workers (harness/WORKER-PROTOCOL.md): one worker
// per arm, batches of a few milliseconds alternated in balanced order (ABBA, BAAB, ...; A = the
// candidate), the idle worker stopped. A block (four batches) is one pair for the statistics, so
// host-side regimes and clock swings, which last far longer than a block, hit both arms alike;
// measurement-review.md section 3 has the figures that motivate it.
//
// It returns the same PairRun records as the process-pair runner: pair i is block i, its arms'
// samples files hold exactly that block's calls, and both arms' CSV files hold the rows the
// workers reported, so assemble(), the records and a restart read blocks like process runs.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "campaign/engine_types.h"
#include "campaign/measurement.h"
#include "exec/worker_process.h"

namespace kopt::campaign {

// The order of the four batches of block `index`: true = candidate. Even blocks ABBA, odd BAAB,
// so over any even number of blocks each arm runs first, second, third and fourth equally often.
std::vector<bool> blockOrder(int index);

// Calls per batch so that one batch of the best arm takes about `batchMs` (at least 3 calls, at
// most 4096), from the best worker's warm-up estimate of one step (every direction).
int callsPerBatch(double stepMs, double batchMs);

// How the look starts arm `candidate` (true) or the best: the plan's command with the arm's
// placeholders and `--serve`, in the arm's tree, its stderr at `log`. run_tests starts the same
// spec ahead of validate_round (spare_workers.h).
exec::WorkerSpec armWorkerSpec(const MeasurementPlan& plan, bool candidate, const std::filesystem::path& log);
// What identifies the arm's build to a spare worker: plan.candidateBuild or plan.bestBuild.
const std::string& armBuild(const MeasurementPlan& plan, bool candidate);
// "candidate" or "best": the arm's name in logs, records and spare workers.
const char* armName(bool candidate);
// The name of worker session `session` of the measurement `tag` ("r1-aa-1-s0"): its files' stem,
// and the look a spare worker can be kept for (spare_workers.h).
std::string sessionStem(const std::string& tag, int session);

class InterleavedRunner {
 public:
  InterleavedRunner(std::function<std::uint64_t()> seeds) : seeds_(std::move(seeds)) {}
  // Blocks first .. first+count-1 of every shape of the plan, in fresh workers (one session: its
  // index is stored in every PairRun so the A/A can compare sessions). Stops early when cancelled.
  std::vector<PairRun> run(const MeasurementPlan& plan, int first, int count, int session, const CallContext& ctx,
                           double progressBase, double progressTotal);

 private:
  std::function<std::uint64_t()> seeds_;
};

}  // namespace kopt::campaign
