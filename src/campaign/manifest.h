#pragma once
// manifest.yaml: what the user confirmed at DEFINE_TARGET (loop-contract section 2) plus kopt's own
// settings (schema, gate policy, executor, timeouts, tips root). Parsed at the edge into typed
// values; every problem is a FieldError naming the field and the fix.
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "exec/command_line.h"
#include "exec/executor_config.h"
#include "measure/bench_table.h"

namespace kopt::campaign {

enum class Backend { Triton, CK, HipBlasLt, Turbo, Hip, Cuda, Cpu };
enum class Language { Triton, Hip, Cuda, Cpp };
enum class ExecutionMode { Repo, Workspace };

const char* toString(Backend b);          // "TRITON", "CK", "HIPBLASLT", "TURBO", "HIP", "CUDA", "CPU"
std::optional<Backend> backendFromString(std::string_view text);  // case-insensitive
std::string backendNames();               // "TRITON, CK, HIPBLASLT, TURBO, HIP, CUDA, CPU": every one, for messages
std::string backendLower(Backend b);      // "triton": tips path and campaign name
const char* toString(Language l);         // "Triton", "HIP", "CUDA", "C++"
Language languageFor(Backend b);          // TRITON->Triton; CK/HIPBLASLT/TURBO/HIP->HIP; CUDA->CUDA; CPU->C++
bool isCompiled(Backend b);               // everything but Triton needs a build after a change
const char* toString(ExecutionMode m);    // "repo", "workspace"

// "MI300X"/"MI325X" -> gfx942, "MI350X"/"MI355X" -> gfx950, "H100"/"H200" -> sm_90,
// "B200" -> sm_100; an arch name (gfx942, gfx950, sm_90, sm_100, ...) or "cpu" maps to itself.
// Case-insensitive; nullopt when unknown.
std::optional<std::string> archForGpu(std::string_view productOrArch);

// The primary metric; mirrors measure::PrimaryMetric (custom = a column name of a custom schema).
enum class MetricKind { ForwardTflops, CombinedStepTflops, ForwardGbps, BackwardGbps, Custom };
struct PrimaryMetric {
  MetricKind kind = MetricKind::ForwardTflops;
  std::string column;  // the CSV column / display name: "Forward TFLOPS", ..., or the custom column
  bool operator==(const PrimaryMetric& o) const { return kind == o.kind && column == o.column; }
};
// "Forward TFLOPS", "Combined Step TFLOPS", "Forward GB/s", "Backward GB/s" (case-insensitive);
// anything else is Custom (validated against the custom schema's metric columns).
PrimaryMetric primaryMetricFromString(std::string_view text);

struct PerformanceTarget {
  std::string text;        // as given: "> 500 TFLOPS"
  std::string comparison;  // ">", ">=", "<", "<="  (default ">" when the text has none)
  double value = 0;
  std::string unit;        // "TFLOPS", "GB/s", ... (may be empty)
};

// The bench table's kinds are the harness's (measure/bench_table.h); a manifest spells them
// "gemm", "memory", "custom".
using SchemaKind = measure::SchemaKind;
const char* manifestName(SchemaKind k);
struct BenchSchema {
  SchemaKind kind = SchemaKind::Gemm;
  // Custom only: the full header in order, the correctness column, the metric columns (each has a
  // "<name>_stddev" partner in `columns`).
  std::vector<std::string> columns;
  std::string checkColumn;
  std::vector<std::string> metricColumns;
};

// The gate's readable defaults (loop-contract section 5); src/measure decides with statistics
// (docs/statistics.md; gate_policy.h maps these onto measure::GatePolicy).
struct GatePolicy {
  double regressionPct = 5.0;
  double nearNoisePct = 2.0;
  int nearNoiseRemeasures = 3;
  double chainDropPct = 1.0;
  // Blocks (interleaved A/B pairs) per look: even, so ABBA/BAAB stays balanced, and at least 4.
  int pairs = 8;
  // The cap on blocks over all looks; pairs * maxLooks when the manifest does not say. Rounded
  // down to whole looks.
  int maxPairs = 24;
  double familyAlpha = 0.05;
  double marginPct = 1.5;     // delta of every shape: a smaller change is "no change"
  double targetMdePct = 2.0;  // BASELINE: blocks per look must reach this MDE, else "fix the harness"
  int maxLooks = 3;           // looks per validation, each tested at Pocock's per-look level
  int aaSessions = 3;         // BASELINE: worker sessions of the A/A (the session model has aaSessions - 1 df)
};

// The manifest's `executor:` block is the exec layer's own config (one type, no copying field by
// field): kind, partition, gres, time, account, extra_args, mode.
using ExecutorKind = exec::ExecutorKind;
using ExecutorConfig = exec::ExecutorConfig;

// How kopt talks to the bench command (harness/WORKER-PROTOCOL.md). `csv`: each A/B pair is two
// fresh processes writing the frozen-schema CSV. `worker`: the command also speaks the worker
// protocol (`--serve`), and the arms are measured as interleaved batches in two persistent
// workers: a pair is a block, far less noisy and far cheaper (docs/statistics.md).
enum class BenchProtocol { Csv, Worker };
struct BenchSettings {
  BenchProtocol protocol = BenchProtocol::Csv;
  double batchMs = 5.0;  // worker protocol: time of one batch of the best arm
};

struct Timeouts {
  int buildSeconds = 3600;
  int testSeconds = 3600;
  int benchSeconds = 3600;
  int hangSeconds = 900;  // two 15-minute polling windows without progress = hang (rule 2)
};

// A command as the user wrote it and as kopt will run it (argv + env, no shell). The placeholders
// ${CAMPAIGN_DIR}, ${REPO_DIR} and ${TARGET_GPU} (also `$CAMPAIGN_DIR` and the contract's
// `<campaign_dir>`) are kept in `parsed` as "${NAME}" and filled by expandPlaceholders() once the
// engine knows the directories; any other `$` is refused (no shell).
struct Command {
  std::string text;
  exec::ParsedCommand parsed;
  bool empty() const { return text.empty(); }
};

struct GitBranch {
  enum class Kind { Auto, None, Named };
  Kind kind = Kind::Auto;
  std::string name;  // Named only
};

struct TargetShapes {
  bool all = true;
  std::vector<std::string> labels;  // when !all
};

struct Duration {
  std::string text;  // "4h", "90m", "3600s", "1h30m"
  long long seconds = 0;
};

struct Manifest {
  // Loop-contract section 2.
  std::string targetOp;                 // required, e.g. gemm_fp8_blockwise
  Backend targetBackend = Backend::Triton;  // required
  Language targetLang = Language::Triton;   // derived from targetBackend (an explicit value must agree)
  std::string targetGpu;                // required: arch (gfx942, sm_90, cpu); products are mapped
  ExecutionMode executionMode = ExecutionMode::Repo;
  std::string projectSkill;             // optional
  std::optional<PerformanceTarget> performanceTarget;
  PrimaryMetric primaryMetric;          // required
  TargetShapes targetShapes;            // default all
  std::vector<std::string> kernelSource;  // required, >= 1 repo-relative paths
  Command testCommand;                  // required
  Command benchmarkCommand;             // required
  Command quickCommand;                 // required
  Command buildCommand;                 // optional (none for Triton)
  Command profileCommand;               // optional
  std::vector<std::string> representativeShapes;  // empty until BASELINE
  bool gitCommit = true;
  GitBranch gitBranch;
  std::string baseBranch;               // optional
  std::optional<int> maxIterations;     // null or 1..119
  std::optional<Duration> maxDuration;  // e.g. 4h
  std::string created;                  // "YYYY-MM-DD HH:MM", required
  // kopt's.
  BenchSchema schema;
  GatePolicy gate;
  ExecutorConfig executor;
  Timeouts timeouts;
  BenchSettings bench;
  std::string tipsRoot;                 // optional; empty = the server's default
};

struct FieldError {
  std::string field;    // "target_backend", "gate.pairs", "executor.kind"
  std::string message;  // "'TRITONN' is not one of TRITON, CK, HIPBLASLT, TURBO, HIP, CUDA, CPU"
  std::string fix;      // "set target_backend to one of ..."
};
// "target_backend: 'TRITONN' is not one of ... (fix: ...)"
std::string toString(const FieldError& e);

using ManifestResult = std::variant<Manifest, std::vector<FieldError>>;

// Parses and validates. All errors are collected (not just the first).
ManifestResult parseManifest(const std::string& yamlText);
// Every key a manifest may have, by section ("" = the top level, then "schema", "gate",
// "executor", "timeouts", "bench"), in the order the docs list them: the parser refuses any other,
// and docs/manifest.md documents exactly these (manifest_doc_test.cpp holds them equal).
const std::map<std::string, std::vector<std::string>>& manifestKeys();
// Validates a Manifest built in code (e.g. by define_target from tool arguments).
std::vector<FieldError> validateManifest(const Manifest& m);
// Emits every field; parseManifest(toYaml(m)) == m.
std::string toYaml(const Manifest& m);

// Parses one command string (placeholders as above). Error text is the exec parser's.
std::variant<Command, std::string> parseCommand(const std::string& text);
struct PlaceholderValues {
  std::string campaignDir, repoDir, targetGpu;
};
// `parsed` with every "${NAME}" replaced in argv words and env values.
exec::ParsedCommand expandPlaceholders(const Command& c, const PlaceholderValues& values);

// The branch kopt uses: optimize/<campaign> for auto, nullopt for none, the name otherwise.
std::optional<std::string> effectiveBranch(const Manifest& m, const std::string& campaignName);

}  // namespace kopt::campaign
