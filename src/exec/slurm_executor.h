#pragma once
// The Slurm backend: commands run as `srun` steps or `sbatch` jobs on the cluster the user already
// has (ExecutorConfig::mode; auto = sbatch for timeouts over autoSbatchAfter). What callers can
// rely on, beyond executor.h:
//  - output lands in spec.stdoutPath / stderrPath (a shared file system, as on any cluster);
//  - the timeout is kopt's own, to the millisecond (Slurm's --time is a whole-minute backstop).
//    With sbatch it counts from the moment the job RUNS (queue time is not the command's); with
//    srun it includes any wait for an allocation, so use srun for short runs;
//  - cancel / timeout / hang: scancel, then run() returns once Slurm reports the job over, so its
//    processes are gone;
//  - RunOutcome::Lost when the node dies or stops answering for nodeLostAfter, or Slurm forgets the
//    job: never a measured result;
//  - FailedToStart, at once, for a request the partition can never satisfy (too many CPUs/GPUs),
//    a missing program or working directory, or missing Slurm tools;
//  - hang detection sees output growth only (the job's CPU time is on another machine);
//  - jobs are submitted with --no-requeue: a benchmark is never silently re-run by Slurm.
// See slurm_executor.cpp for how a job's state, exit code and output come back.
#include <memory>

#include "exec/executor.h"
#include "exec/executor_config.h"

namespace kopt::exec {

std::unique_ptr<Executor> makeSlurmExecutor(const ExecutorConfig& config);

}  // namespace kopt::exec
