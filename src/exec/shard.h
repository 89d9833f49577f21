#pragma once
// Sharding a full validation across devices: the shape list is split over N devices, each shard
// runs the bench harness on its own device with `--shapes <its labels>`, and the per-shard
// frozen-schema CSVs (and samples files) are merged back, in the manifest's shape order, into one
// file byte-identical in format to a single-device run (same header line, the harness's own row
// text, LF line ends).
//
// What sharding is NOT for: the statistical A/B comparison of one shape (candidate vs best,
// alternated) always runs on ONE device. Comparing a candidate measured on GPU 0 with a best
// measured on GPU 1 would fold device-to-device variation into the verdict. Shard only the
// independent per-shape sweep (a full validation, a baseline table); never split the two arms
// of a comparison.
//
// Devices: locally, one process per device with CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES set
// to the device id. On Slurm, one job per shard and the scheduler picks the GPU: build the Slurm
// executor with `gres: gpu:1` and use DeviceBinding::SchedulerAssigns (Slurm then sets
// CUDA_VISIBLE_DEVICES itself; the device ids are only names in the logs).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "exec/executor.h"

namespace kopt::exec {

// Round-robin, so a shape list sorted by size gives every device a similar load. Never returns an
// empty shard: with fewer shapes than devices, only the first shapes.size() devices get work.
// shards == 0 is treated as 1.
std::vector<std::vector<std::string>> splitShapes(const std::vector<std::string>& shapes, std::size_t shards);

struct MergeError {
  std::string message;  // names the shard and the label or line at fault
};

// Merges per-shard summary CSVs (index = shard). Every shard must have the same header line; every
// label of `shapeOrder` must appear in exactly one shard, and no other label may appear.
std::variant<std::string, MergeError> mergeSummaryCsv(const std::vector<std::string>& shapeOrder,
                                                      const std::vector<std::string>& shardCsvs);

// Merges per-shard samples files (JSON Lines, header object first). The headers must agree on
// kopt_samples, harness, device and seed (shards on different device models would make one table
// out of two machines); the merged header is shard 0's line. Sample lines follow `shapeOrder`,
// each shape's lines in the order its shard wrote them.
std::variant<std::string, MergeError> mergeSamples(const std::vector<std::string>& shapeOrder,
                                                   const std::vector<std::string>& shardSamples);

enum class DeviceBinding {
  VisibleDevicesEnv,  // local: CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES = the shard's device id
  SchedulerAssigns,   // Slurm: the executor requests one GPU per job; kopt sets nothing
};

struct ShardedRunSpec {
  // The bench command without --summary-csv/--samples/--shapes/--seed (kopt appends them), with
  // its env, cwd, timeout and hangAfter (per shard). stdoutPath, when set, receives every shard's
  // log one after the other at the end; stderrPath is ignored (shard logs hold both streams).
  CommandSpec base;
  std::vector<std::string> shapes;   // the manifest's order; every one is run
  std::vector<std::string> devices;  // one shard per device id, e.g. {"0", "1"}
  DeviceBinding binding = DeviceBinding::VisibleDevicesEnv;
  std::optional<std::uint64_t> seed;  // the same --seed for every shard
  std::filesystem::path summaryCsv;   // where the merged CSV goes
  std::filesystem::path samples;      // where the merged samples go; empty: not requested
  std::filesystem::path workDir;      // shard-<i>.csv, shard-<i>.samples.jsonl, shard-<i>.log
};

struct ShardOutcome {
  std::string device;
  std::vector<std::string> shapes;
  RunResult result;
};

struct ShardedRunResult {
  // Exited 0 when every shard's command succeeded; otherwise the first failing shard's result (the
  // others are cancelled), or FailedToStart for a spec that cannot run.
  RunResult overall;
  // Empty on success; otherwise what went wrong, naming the shard (a failed shard, a missing
  // shard CSV, a merge conflict). The merged files are written only when this stays empty.
  std::string error;
  std::vector<ShardOutcome> shards;
  bool ok() const { return overall.ok() && error.empty(); }
};

// Runs the shards concurrently through `executor` (which must allow concurrent run() calls, as
// the local and Slurm executors do), then merges. Cancelling `observer.cancel` cancels every
// shard. Progress reports sum the shards' output; lastLine is the most recent shard line.
ShardedRunResult runSharded(Executor& executor, const ShardedRunSpec& spec, const RunObserver& observer);

}  // namespace kopt::exec
