#pragma once
// The A/B measurement runner: the candidate (the working tree) and the current best (a git
// worktree of the last accepted commit) measured interleaved, each run a fresh process of the
// bench command writing its own CSV + samples under artifacts/runs/. Pairs alternate their order
// (AB, BA, AB, ...) so slow drift cancels, and each pair gets a kopt-generated secret --seed
// (the same for both arms of a pair, so they see the same inputs and the kernel cannot predict
// them). Output files are deleted before a run and must be newer than its start: a file the agent
// placed there, or one left by an earlier run, is never read.
//
// A/A calibration (BASELINE) is the same runner with both arms building the same commit.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/engine_types.h"
#include "campaign/manifest.h"
#include "exec/executor.h"
#include "exec/shard.h"
#include "measure/bench_table.h"
#include "measure/statistics.h"
#include "measure/samples_file.h"
#include "measure/scoring.h"

namespace kopt::campaign {

struct ArmRun {
  std::string arm;  // "candidate" | "best"
  std::filesystem::path csv, samples, log;
  bool ok = false;     // the CSV exists, is fresh and parses
  std::string error;   // why not ok
  std::string outcome; // exec outcome name
  int exitCode = -1;
  long long wallMs = 0;
  std::optional<measure::BenchTable> table;
  std::optional<measure::SamplesFile> samplesFile;
  measure::RunSummary summary;  // one throughput per shape (samples median, else the table)
};

struct PairRun {
  int index = 0;
  // Which worker session measured it (interleaved runner: one pair of worker processes per
  // session; the A/A compares sessions). Process pairs: always 0.
  int session = 0;
  std::uint64_t seed = 0;
  bool candidateFirst = true;
  ArmRun candidate, best;
};

struct MeasurementPlan {
  std::string tag;  // file-name prefix under runsDir, unique per measurement ("r3-quick-a")
  Command command;  // quick_command or benchmark_command
  std::vector<std::string> shapes;  // passed as --shapes; empty = the harness's default set
  std::filesystem::path candidateTree, bestTree;
  PlaceholderValues candidatePlaceholders, bestPlaceholders;
  std::filesystem::path runsDir;
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  std::chrono::milliseconds hangAfter{0};
  measure::PrimaryMetric metric;
  measure::SchemaKind schemaKind = measure::SchemaKind::Gemm;
  std::optional<measure::CustomSchema> custom;
  // Two or more: each run is split by shape over these devices (exec::runSharded) and merged back
  // into one table. The split depends only on `shapes` and `devices`, so a shape's candidate and
  // best runs land on the same device: the A/B comparison never crosses devices.
  std::vector<std::string> devices;
  exec::DeviceBinding binding = exec::DeviceBinding::VisibleDevicesEnv;
  // The harness speaks harness/WORKER-PROTOCOL.md: the arms are measured as interleaved batches in
  // two persistent workers (interleaved_runner.h), a pair is a block. Otherwise each pair is two
  // fresh processes of the command writing the frozen-schema CSV.
  bool workers = false;
  double batchMs = 5.0;  // the best arm's time per batch the worker runner aims at
  // What identifies the best arm's build (its commit; empty: nothing does). The worker runner then
  // sizes batches from what it measured for that build before (batch_sizing_memo.h).
  std::string bestIdentity;
  // What a worker started ahead must have been started for to be taken for an arm
  // (spare_workers.h): the candidate's kernel files and kopt's last build record of them; the
  // best's commit and kopt's last build record of its worktree. Empty: no spare is taken.
  std::string candidateBuild, bestBuild;
  // The one CPU both workers are pinned to (exec/cpu_affinity.h: cores differ in speed, and a
  // process stays on its core); none: not pinned, unless pickWorkerCpu.
  std::optional<int> workerCpu;
  // No workerCpu given: each look pins its workers to the CPU that was idlest over the 100 ms
  // before it starts them (a plan made and not run, as run_tests makes one, samples nothing).
  bool pickWorkerCpu = false;
  // How many bench workers of this measurement are alive on one device at once: a look's two arms,
  // and at BASELINE every A/A session's two, started at once (spare_workers.h). Each worker gets it
  // as KOPT_WORKERS_ON_DEVICE (kWorkersOnDeviceEnv) and sizes its large allocations to its share of
  // the device's free memory (harness/WORKER-PROTOCOL.md).
  int workersOnDevice = 2;
};

// The environment variable that tells a bench worker plan.workersOnDevice.
inline constexpr const char* kWorkersOnDeviceEnv = "KOPT_WORKERS_ON_DEVICE";

class MeasurementRunner {
 public:
  // Worker plans run in fresh worker sessions numbered from 0 per runner, one per run() call.
  MeasurementRunner(exec::Executor& executor, std::function<std::uint64_t()> seeds);
  // Runs pairs first .. first+count-1. Stops early when cancelled (the unfinished pair is
  // dropped). `progressBase` = runs already done in this call, `progressTotal` = runs planned.
  // Also stops at a run the infrastructure lost (a Slurm node that died): its pair is dropped and
  // lostRun() says why, so the caller discards the whole measurement instead of gating on it.
  std::vector<PairRun> run(const MeasurementPlan& plan, int first, int count, const CallContext& ctx,
                           double progressBase, double progressTotal);
  // Why the last run() stopped on a lost run; empty when none was lost.
  const std::string& lostRun() const { return lostRun_; }

 private:
  ArmRun runArm(const MeasurementPlan& plan, const std::string& arm, int pair, std::uint64_t seed,
                const CallContext& ctx, double progressAt, double progressTotal, const std::string& what);
  exec::Executor& executor_;
  std::function<std::uint64_t()> seeds_;
  double typicalRunSeconds_ = 5.0;
  std::string lostRun_;
  int nextSession_ = 0;
};

// Reads an ArmRun's files again (restart / reuse of an earlier measurement).
ArmRun loadArmRun(const MeasurementPlan& plan, const std::string& arm, const std::filesystem::path& csv,
                  const std::filesystem::path& samples);

// What the pairs say, ready for the gate and the records.
struct AssembledRuns {
  std::vector<measure::PairedRuns> runs;  // shapes PASS in every run of both arms
  std::vector<std::pair<std::string, measure::Check>> candidateChecks;  // worst over candidate runs
  std::vector<std::string> bestPassLabels;                              // PASS in every best run
  std::vector<std::string> labels;        // the shape set of the first good run, in order
  std::vector<std::string> problems;      // failed runs, schema drift, shape-set drift (one line each)
  bool schemaDrift = false;
  bool shapeSetDrift = false;
  bool candidateRunFailed = false;        // a candidate run crashed / wrote no table
  bool bestRunFailed = false;
  int usablePairs = 0;
  std::string headerBytes;                // the header line of the first good candidate run
};
AssembledRuns assemble(const std::vector<PairRun>& pairs, const std::string& frozenHeader,
                       const std::vector<std::string>& expectedLabels);

// Per shape and metric column, the median over one arm's runs (check = worst), as a table the
// records render (benchmark numbers in summary.md / the trend row).
std::vector<records::ShapeResult> medianResults(const std::vector<PairRun>& pairs, bool candidateArm,
                                                const measure::PrimaryMetric& metric);
// Median of the per-run primary metric per shape for one arm.
std::optional<double> armMedian(const std::vector<PairRun>& pairs, bool candidateArm, const std::string& label);

// The index of a measurement on disk (artifacts/measurement-<tag>.json), rewritten atomically
// after every completed pair: a restart keeps completed pairs and discards a half-run one.
nlohmann::json pairsToJson(const std::vector<PairRun>& pairs);
std::vector<PairRun> pairsFromJson(const nlohmann::json& j, const MeasurementPlan& plan);

std::optional<measure::CustomSchema> measureCustomSchema(const Manifest& m);
measure::PrimaryMetric measureMetric(const Manifest& m);
measure::GatePolicy gatePolicyFor(const Manifest& m);

// A secret seed from /dev/urandom (63 bits, so every harness can parse it as a signed integer).
std::uint64_t secretSeed();

}  // namespace kopt::campaign
