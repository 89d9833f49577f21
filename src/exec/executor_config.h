#pragma once
// Which backend runs a campaign's commands: the manifest's `executor:` block as a plain struct,
// so the campaign layer (which owns YAML) fills it field by field and this layer never sees YAML.
//
//   executor: {kind: local|slurm, partition: gpu, gres: "gpu:1", time: "00:30:00",
//              account: proj, extra_args: ["--qos=high"], mode: srun|sbatch|auto, devices: [0, 1]}
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "exec/executor.h"

namespace kopt::exec {

enum class ExecutorKind { Local, Slurm };
// How Slurm runs a command: `srun` blocks in a step (short runs: builds, tests, quick benches);
// `sbatch` submits a batch job that kopt polls (long runs that must survive a flaky login node);
// `auto` picks sbatch when the command's timeout exceeds `autoSbatchAfter`.
enum class SlurmMode { Srun, Sbatch, Auto };

struct ExecutorConfig {
  ExecutorKind kind = ExecutorKind::Local;
  // Slurm only; empty: the cluster's default / no flag.
  std::string partition;
  std::string gres;     // e.g. "gpu:1", passed as --gres
  std::string time;     // Slurm --time (e.g. "30", "01:00:00"); empty: derived from the timeout
  std::string account;  // --account
  std::vector<std::string> extraArgs;  // appended to every srun/sbatch, one argument each
  SlurmMode mode = SlurmMode::Auto;
  // Devices a full (all-shape) measurement is sharded over, one shard per id (exec/shard.h): the
  // shapes are split across them, while each shape's candidate and best runs stay on one device.
  // Local: each shard gets CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES = its id. Slurm: one job per
  // shard and Slurm picks the GPU (set gres: gpu:1); the ids only name the shards. Empty or one
  // id: no sharding.
  std::vector<std::string> devices;
  std::chrono::milliseconds autoSbatchAfter{std::chrono::minutes(10)};
  // How often the Slurm backend asks squeue about a job (the first seconds poll faster, so a short
  // job is not held up; slurmctld is shared, so the steady rate stays modest).
  std::chrono::milliseconds pollEvery{std::chrono::seconds(1)};
  // A node whose slurmd stops answering (sinfo's '*') for this long has lost the job, even before
  // slurmctld declares it DOWN (SlurmdTimeout, often minutes). A DOWN node or a NODE_FAIL job is
  // lost at once.
  std::chrono::milliseconds nodeLostAfter{std::chrono::seconds(60)};
};

const char* toString(ExecutorKind kind);
const char* toString(SlurmMode mode);

// Parsers for the manifest's strings; the error names the accepted values.
std::variant<ExecutorKind, std::string> parseExecutorKind(const std::string& text);
std::variant<SlurmMode, std::string> parseSlurmMode(const std::string& text);

// Checks a config before any command runs (a Slurm time that is not a Slurm time, an argument
// with a newline, ...); returns the first problem, naming the `executor.<field>` to fix.
std::optional<std::string> validate(const ExecutorConfig& config);

// The backend for `config`: local, or Slurm. Never null; a config that fails validate() still
// gets an executor, whose every run() is FailedToStart with the validation error.
std::unique_ptr<Executor> makeExecutor(const ExecutorConfig& config);

}  // namespace kopt::exec
