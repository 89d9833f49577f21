#pragma once
// What a build or test command's outcome means to the referee, decided in one place for every
// tool that runs one (rebuild_kernel, run_tests, run_baseline, validate_round, final_acceptance).
// A run that exited, timed out, hung or was killed by a signal judged the kernel: the tool records
// it. A run the call's cancellation stopped, or one the cluster lost (a Slurm node that died),
// judged nothing: nothing of it is recorded, the tool fails, and the same call succeeds once it
// can run (docs/slurm.md, "What kopt guarantees on Slurm": a lost run is never a measured or
// failed round).
#include <optional>
#include <string>

#include "campaign/refusal.h"
#include "exec/executor.h"

namespace kopt::campaign::detail {

// The failure of `tool` when the cluster lost one of its runs (`what`: the executor's account).
ToolFailure lostRunFailure(const std::string& tool, const std::string& what);

// The failure of `tool` when `run` judged nothing (cancelled or lost); nullopt when it judged the
// kernel and is to be recorded.
std::optional<ToolFailure> unjudgedRunFailure(const exec::RunResult& run, const std::string& tool);

// A tree's build for a step of `tool`: ready (nothing set), failed, or not judged at all.
struct TreeBuild {
  std::optional<ToolFailure> unjudged;  // cancelled or lost: nothing recorded, the call fails
  std::string error;                    // the build failed (or the tree could not be prepared): why
  bool ready() const { return !unjudged && error.empty(); }
};

}  // namespace kopt::campaign::detail
