#include "campaign/workers_ahead.h"

#include <filesystem>
#include <system_error>

#include "campaign/interleaved_runner.h"
#include "campaign/measurement_setup.h"
#include "campaign/spare_workers.h"
#include "campaign/worktree_build.h"

namespace kopt::campaign::detail {

void startWorkersAhead(OpenCampaign& session, exec::Executor& executor, const RoundPaths& round, const CallContext& ctx) {
  const Manifest& m = session.manifest;
  // Sharded looks start their workers per device.
  if (m.bench.protocol != BenchProtocol::Worker || session.state.bestCommit.empty() || m.executor.devices.size() > 1) {
    return;
  }
  // Made ready now rather than when the look opens: a worker started in the tree before that would
  // have read whatever the tree held (docs/integrity.md, referee hole 2).
  const TreeBuild best = ensureWorktreeBuilt(session, executor, session.paths.bestWorktree, session.state.bestCommit,
                                             round.artifacts / "best_build.log", "run_tests", ctx);
  if (best.unjudged || !best.error.empty()) return;
  // After the build: the plan names the build record the worker is started for.
  const MeasurementPlan plan = planFor(session, true, session.paths.bestWorktree, round.artifacts / "runs", "ahead");
  std::error_code ec;
  std::filesystem::create_directories(plan.runsDir, ec);
  for (bool candidate : {true, false}) {
    const std::string arm = armName(candidate);
    const std::string& build = armBuild(plan, candidate);
    if (build.empty()) continue;
    std::string error;
    const exec::WorkerSpec spec = armWorkerSpec(plan, candidate, plan.runsDir / ("ahead-" + arm + ".log"));
    SpareWorkers::shared().offer(arm, spec, build, error);  // one that fails to start: the look starts its own
  }
}

}  // namespace kopt::campaign::detail
