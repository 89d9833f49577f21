#pragma once
// Helpers shared by the engine's per-tool files: running a logged command, fingerprinting the
// kernel's files, keeping the best/baseline worktrees built, shaping results.
#include <filesystem>
#include <memory>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "campaign/command_outcome.h"
#include "campaign/engine_session.h"
#include "campaign/engine_types.h"
#include "campaign/measurement.h"
#include "exec/executor.h"
#include "measure/statistics.h"

namespace kopt::campaign::detail {

std::unique_ptr<exec::Executor> makeExecutorFor(const EngineOptions& options, const Manifest& manifest);

// Files (tracked, and untracked not ignored) under `paths` in the repository, repo-relative,
// sorted; `.kopt/` excluded.
std::vector<std::string> listScopeFiles(const std::filesystem::path& repo, const std::vector<std::string>& paths);
// sha256 over the names and contents of those files: "what would be measured".
std::string treeFingerprint(const std::filesystem::path& repo, const std::vector<std::string>& paths);
// kernel_source plus the open round's declared files.
std::vector<std::string> kernelScope(const OpenCampaign& session);
// True when `file` (repo-relative) is `scope` or lies under it (scope a directory).
bool inScope(const std::string& file, const std::string& scope);
bool inAnyScope(const std::string& file, const std::vector<std::string>& scopes);

// Runs a manifest command with its output in `log`; progress as "<what>: N bytes, last line".
exec::RunResult runLogged(exec::Executor& executor, const Command& command, const PlaceholderValues& values,
                          const std::filesystem::path& cwd, const std::filesystem::path& log, int timeoutSeconds,
                          int hangSeconds, const CallContext& ctx, const std::string& what, double progressAt,
                          std::optional<double> progressTotal);
// The last `maxBytes` of a log (cut at a line start), "" when missing.
std::string logTail(const std::filesystem::path& log, std::size_t maxBytes = 4000);
std::string describe(const exec::RunResult& r);
// The ledger events of a finished build or test run of the kernel files `fingerprint` names.
BuildFinished buildFinished(const exec::RunResult& r, const std::string& fingerprint);
TestsFinished testsFinished(const exec::RunResult& r, const std::string& fingerprint);

// The tracked files of the repository outside the kernel sources, each with the sha256 of its
// bytes on disk ("<missing>" when gone): the harness sources a build compiles, scripts, data.
// Listed by `git ls-files` and hashed by kopt, so no git view (assume-unchanged, skip-worktree,
// filters) can hide an edit (docs/integrity.md, referee holes 3, 4).
std::map<std::string, std::string> nonKernelFileHashes(const OpenCampaign& session);
// One sha256 over that map (paths and hashes): what BASELINE freezes as
// kFrozenNonKernelFiles.
std::string nonKernelFingerprint(const std::map<std::string, std::string>& hashes);
inline constexpr const char* kFrozenNonKernelFiles = "repository outside the kernel sources";

// Before a command runs in the candidate's tree (docs/integrity.md, referee hole 2): removes the
// bytecode caches of its tracked Python sources, so Python runs what kopt hashed, not a planted
// cache whose header matches the source; returns a text naming the untracked files Python would
// import in place of a tracked source (a package directory, an extension module), "" when none.
std::string clearPythonShadows(const OpenCampaign& session, int* cachesRemoved = nullptr);
// clearPythonShadows as the first step of `tool`: the failure that stops it, if any.
std::optional<ToolFailure> pythonShadowFailure(const OpenCampaign& session, const std::string& tool,
                                               int* cachesRemoved = nullptr);

// sha256 over every file and symlink under `dir` (path and content), git's own .git left out:
// sources, build outputs and ignored files alike, so nothing in the tree changes unseen.
// `excluded`: paths relative to `dir` left out with everything under them.
std::string worktreeContentFingerprint(const std::filesystem::path& dir, const std::vector<std::string>& excluded = {});
// The same over the candidate's working tree, kopt's own records (.kopt, the campaign directory)
// left out: recorded after every build of the candidate, so a binary swapped in afterwards shows.
std::string candidateContentFingerprint(const OpenCampaign& session);

// A git worktree of `commit` at `dir` that kopt built with the manifest's build command (log at
// `buildLog`) and recorded in the ledger (WorktreeBuilt, with the tree's content hash). A
// tree that still hashes to that record is reused; any other is reset to the commit, cleaned of
// every untracked and ignored file, and built again (docs/integrity.md, referee holes 2, 9). Returns an error
// text, or "" when ready.
std::string ensureWorktreeBuilt(OpenCampaign& session, exec::Executor& executor, const std::filesystem::path& dir,
                                const std::string& commit, const std::filesystem::path& buildLog,
                                const CallContext& ctx);

// The measurement plan for a round: quick (quick_command on the representative shapes) or full
// (benchmark_command on all target shapes), candidate = the repository, best = `bestTree`.
MeasurementPlan planFor(const OpenCampaign& session, bool full, const std::filesystem::path& bestTree,
                        const std::filesystem::path& runsDir, const std::string& tag);
// Expected labels of a quick / full run (from the baseline event).
std::vector<std::string> expectedLabels(const OpenCampaign& session, bool full);
std::string frozenHeader(const OpenCampaign& session);
std::vector<std::string> representativeShapes(const OpenCampaign& session);
measure::Calibration calibrationOf(const OpenCampaign& session);
// The BASELINE harness check as recorded in the ledger, and the blocks per look it asked for
// (the policy's when the campaign measured process pairs, or was baselined before the check).
nlohmann::json harnessToJson(const measure::HarnessCheck& check);
int blocksPerLookOf(const OpenCampaign& session, const measure::GatePolicy& policy);

// Result rows from the gate's verdicts and the pairs.
std::vector<ShapeRow> shapeRows(const AssembledRuns& assembled, const std::vector<PairRun>& pairs,
                                const measure::GateResult* gate);
AggregateRow aggregateRow(const OpenCampaign& session, const std::vector<ShapeRow>& rows,
                          const measure::GateResult* gate);
std::vector<GateReason> gateReasons(const measure::GateResult& gate);

// The number in the next measurement's tag: one more than the round's finished measurements and
// the interrupted ones discarded after a crash (artifacts/discarded-tags), so a bench process
// orphaned by a killed server can never write into the files of a later measurement.
int measurementOrdinal(const OpenCampaign& session, int round);

// The measurement index (artifacts/measurement-<tag>.json).
void writeMeasurementIndex(const std::filesystem::path& path, const std::string& tag, const std::string& fingerprint,
                           bool full, const std::vector<PairRun>& pairs);

// Copies the benchmark CSV/samples of the candidate's first good run to the round's
// artifacts/benchmark.csv (byte copy) and benchmark.samples.jsonl, replacing whatever was there.
void publishBenchmarkCsv(const std::vector<PairRun>& pairs, const RoundPaths& round);

// Values of the trend row (aligned with trendColumnsFor(schema).valueHeaders) from a record.
std::vector<std::optional<double>> trendValues(const Manifest& manifest, const records::RoundRecord& record);

// Finds the record of a round in the ledger (baseline_recorded / round_decided payloads).
std::optional<records::RoundRecord> roundRecord(const OpenCampaign& session, int round);

// Builds the shared parts of a RoundRecord (results with deltas vs best, aggregate vs best and
// baseline) from measured medians.
records::RoundRecord measuredRecord(const OpenCampaign& session, int round, const std::vector<PairRun>& pairs,
                                    const AssembledRuns& assembled, const measure::GateResult* gate, bool full);

}  // namespace kopt::campaign::detail
