#pragma once
// What `kopt doctor` says about the executor: which backend, whether it can run anything, and for
// Slurm the partition(s) and the GPUs (gres) the cluster reports. Never throws, never blocks for
// long (each Slurm query has a short timeout).
#include <string>
#include <vector>

#include "exec/executor_config.h"

namespace kopt::exec {

struct ExecutorReport {
  std::string kind;        // "local" | "slurm"
  bool usable = false;     // false: commands would fail to start; `problem` says why
  std::string problem;     // empty when usable
  std::vector<std::string> details;  // human-readable lines: partition, nodes, CPUs, GPUs, mode
};

ExecutorReport inspectExecutor(const ExecutorConfig& config);

}  // namespace kopt::exec
