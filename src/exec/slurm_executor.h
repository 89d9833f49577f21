#pragma once
// The Slurm backend: commands run as `srun` steps or `sbatch` jobs on the cluster the user already
// has. See slurm_executor.cpp for how a job's state, exit code and output come back.
#include <memory>

#include "exec/executor.h"
#include "exec/executor_config.h"

namespace kopt::exec {

std::unique_ptr<Executor> makeSlurmExecutor(const ExecutorConfig& config);

}  // namespace kopt::exec
