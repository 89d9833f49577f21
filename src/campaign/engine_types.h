#pragma once
// The typed requests and results of CampaignEngine, one pair per tool (clangd's Protocol.h for
// kopt's domain). No JSON here: src/tools converts at the edge.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/phase.h"
#include "campaign/records/record_types.h"
#include "util/cancellation.h"

namespace kopt::campaign {

// What a long call may do besides computing: report progress, notice cancellation.
struct CallContext {
  CancellationToken cancel;
  // progress strictly increases within one call (the engine counts finished steps + fractions).
  std::function<void(double progress, std::optional<double> total, const std::string& message)> progress;
  void report(double p, std::optional<double> total, const std::string& message) const {
    if (progress) progress(p, total, message);
  }
};

struct NextStep {
  std::string tool;
  std::string why;
};

// ---- define_target ----
struct DefineTargetRequest {
  std::string repoPath;     // required: the user's git repository holding the kernel
  std::string campaignDir;  // optional: default <repo>/.kopt/campaigns/<name>
  std::string manifestPath; // optional: a manifest YAML file (inside the repo or the workspace)
  std::string manifestYaml; // optional: manifest YAML text
  // Individual fields; each one given overrides the same key of the YAML source.
  std::optional<std::string> targetOp, targetBackend, targetGpu, primaryMetric, testCommand,
      benchmarkCommand, quickCommand, buildCommand, profileCommand, performanceTarget,
      executionMode, gitBranch, baseBranch, maxDuration, projectSkill, created, schema, tipsRoot;
  std::optional<std::vector<std::string>> kernelSource, targetShapes;  // targetShapes {"all"} = all
  std::optional<int> maxIterations;
  std::optional<bool> gitCommit;
};
struct DefineTargetResult {
  std::string campaignName;
  std::string campaignDir;
  std::string repo;
  std::string manifestYaml;
  std::string summary;  // what the user is asked to confirm, in words
  bool redefined = false;
  std::vector<std::string> warnings;
  Phase phase = Phase::DefineTarget;
};

// ---- confirm_target ----
struct ConfirmTargetRequest {
  std::string campaignDir;
  bool confirm = false;
  std::string confirmedBy;  // a person's name, or "elicitation:<client>" (set by the tools layer)
  std::string method;       // "argument" | "elicitation"
};
struct ConfirmTargetResult {
  std::string confirmedBy;
  std::string method;
  std::string manifestSha256;
  Phase phase = Phase::PrepareEnvironment;
};
struct TargetSummary {
  std::string campaignName;
  std::string manifestYaml;
  std::string summary;
  Phase phase = Phase::DefineTarget;
};

// ---- prepare_environment ----
struct PrepareEnvironmentResult {
  std::optional<std::string> branch;  // nullopt: git_branch none
  std::string baseCommit;
  std::string campaignDir;
  std::string manifestSha256;
  bool harnessCopied = false;
  std::string harnessPath;
  Phase phase = Phase::ReadHistoricalTips;
};

// ---- read_tips ----
struct ReadTipsResult {
  std::string path;
  bool exists = false;
  int count = 0;
  std::string text;  // the whole tips file ("" when missing)
  std::vector<std::string> headings;
  Phase phase = Phase::Baseline;
};

// ---- shared result pieces ----
struct ShapeRow {
  std::string label;
  std::string check;          // PASS / FAIL / ERROR (candidate's worst over runs)
  std::optional<double> candidate;  // median over runs of the per-run primary metric
  std::optional<double> best;
  std::optional<double> ratio;      // candidate / best (paired estimate)
  std::optional<double> ciLowPct, ciHighPct;
  std::optional<double> deltaPct;   // practical threshold (A/A), percent
  std::optional<double> mdePct;
  // The slowdown this shape is shown not to exceed for an ACCEPT (fixed at BASELINE), percent.
  std::optional<double> tolerancePct;
  std::string verdict;              // IMPROVED / SAME / REGRESSED / INCONCLUSIVE / FAIL / ""
  std::string note;
};
struct AggregateRow {
  std::string metric;
  std::optional<double> candidate, best;  // geomean over PASS shapes (median runs)
  std::optional<double> ratio, ciLowPct, ciHighPct;
  std::optional<double> vsBaselinePct;
};
struct GateReason {
  std::string code;
  std::string label;
  std::string message;
};

// ---- run_baseline ----
struct BaselineResult {
  int round = 1;
  std::string commit;
  std::vector<ShapeRow> shapes;
  AggregateRow aggregate;
  std::vector<std::string> representativeShapes;
  std::vector<std::string> frozen;  // names of the frozen entries
  int pairs = 0;                    // A/A pairs measured
  int aaSameShapes = 0, aaShapes = 0;  // the gate's verdict on the A/A pairs: SAME on this many shapes
  double marginPct = 0.0;           // every verdict's delta: the policy margin
  // Worker mode: the harness check (one line per shape), the worker sessions the A/A ran
  // (gate.aa_sessions; twice that after a bias alarm) and the blocks each validation look runs.
  std::vector<std::string> harness;
  int aaSessions = 0;
  int blocksPerLook = 0;
  std::string benchmarkCsv;
  std::string summaryPath;
  Phase phase = Phase::Analyze;
};

// ---- begin_round ----
struct BeginRoundRequest {
  std::string campaignDir;
  records::Hypothesis hypothesis;  // parsed at the edge (bucket/direction enums)
  std::string bucketText;          // as given, for the W2/W3 refusal message
};
struct BeginRoundResult {
  int round = 0;
  std::string lineageHead;
  std::vector<std::string> declaredFiles;
  bool configOnly = false;
  std::string hypothesisSha256;
  std::vector<std::string> alreadyChanged;  // files already differing from the head (warning)
  Phase phase = Phase::Optimize;
};

// ---- rebuild_kernel / run_tests ----
struct StepRequest {
  std::string campaignDir;
};
struct StepResult {
  int round = 0;
  std::string step;  // "build" | "tests"
  bool ok = false;
  bool skipped = false;  // no build command (Triton)
  std::string outcome;   // exec::RunOutcome name
  int exitCode = -1;
  long long wallMs = 0;
  std::string logPath;
  std::string logTail;   // the last lines of the log
  Phase phase = Phase::Optimize;
};

// ---- run_quick_bench / validate_round ----
struct BenchRequest {
  std::string campaignDir;
  bool full = false;  // all target shapes with the benchmark command (default: quick, representative)
  int pairs = 0;      // 0: the manifest's gate.pairs
};
struct BenchResult {
  int round = 0;
  std::string kind;  // "quick" | "full"
  int pairs = 0;
  std::vector<ShapeRow> shapes;
  AggregateRow aggregate;
  std::string preview;  // the gate's decision on these pairs (informational until validate_round)
  std::vector<GateReason> reasons;
  std::string benchmarkCsv;
  std::string runsDir;
  Phase phase = Phase::Optimize;
};
struct ValidateRequest {
  std::string campaignDir;
  bool full = false;
};
struct ValidateResult {
  int round = 0;
  std::string decision;  // ACCEPT / ACCEPT_WITH_NOTE / ROLLBACK / AUDIT
  std::vector<GateReason> reasons;
  std::vector<std::string> checks;  // "frozen files intact", "diff inside declared files", ...
  std::vector<std::string> changedFiles;
  std::string kind;  // quick / full
  int pairs = 0;
  std::vector<ShapeRow> shapes;
  AggregateRow aggregate;
  std::vector<std::string> flags;  // plausibility
  std::string benchmarkCsv;
  Phase phase = Phase::Validate;
};

// ---- accept_or_revert ----
struct AcceptOrRevertRequest {
  std::string campaignDir;
  std::string description;    // one line (trend, commit subject); default: the hypothesis' change
  std::string attribution;    // required
  std::string nextDirection;  // required
  std::string keyFinding;
  // Rollback analysis (required when the verdict is a rollback).
  std::string rootCause, lesson;
  // Real-training transfer check (rule 11).
  std::string cacheKey, idAudit, hitRateTrace, skewRobustness, estimatedRealGain, transferDecision;
  // AUDIT verdicts only: the person who audited the flagged numbers confirms them (ACCEPT) or
  // rejects them (ROLLBACK).
  std::string auditConfirmedBy, auditNote;
  bool auditRejected = false;
};
struct AcceptOrRevertResult {
  int round = 0;
  std::string status;  // ACCEPTED / ACCEPTED WITH NOTE / ROLLED BACK
  std::string commit;  // accepted: new commit; rolled back: the commit restored
  std::vector<std::string> restoredFiles;
  std::string summaryPath;
  int consecutiveRollbacks = 0;
  bool stagnationReviewRequired = false;
  std::vector<NextStep> next;
  Phase phase = Phase::Analyze;
};

// ---- termination_check ----
struct TerminationRequest {
  std::string campaignDir;
  bool userStop = false;
  std::vector<std::string> directions;  // "category: direction" (stagnation review)
};
struct TerminationResult {
  struct Condition {
    std::string id;
    bool met = false;
    std::string detail;
  };
  std::vector<Condition> conditions;
  bool stop = false;
  std::string decision;
  bool stagnationReviewRequired = false;
  bool stagnationReviewDone = false;
  std::vector<NextStep> next;
  Phase phase = Phase::Analyze;
};

// ---- final_acceptance ----
struct FinalAcceptanceRequest {
  std::string campaignDir;
  int pairs = 0;
};
struct FinalAcceptanceResult {
  bool testsOk = false;
  std::string testLog;
  int pairs = 0;
  std::vector<ShapeRow> shapes;  // best (candidate) vs baseline (best column)
  AggregateRow aggregate;
  std::string bestCommit, baselineCommit;
  Phase phase = Phase::Report;
};

// ---- report ----
struct ReportResult {
  std::string reportPath;
  std::vector<std::string> files;
  std::string markdown;  // report.md text
  Phase phase = Phase::Done;
};

// ---- campaign_status ----
struct StatusResult {
  std::string campaignDir, campaignName, repo;
  Phase phase = Phase::DefineTarget;
  std::string expectation;
  int lastRound = 0;
  std::optional<int> openRound;
  std::vector<std::string> declaredFiles;
  std::optional<int> bestRound;
  std::string bestCommit, baselineCommit;
  std::optional<double> bestAggregate, baselineAggregate;
  std::string metric;
  int consecutiveRollbacks = 0;
  int acceptedRounds = 0, rolledBackRounds = 0;
  std::uint64_t ledgerEvents = 0;
  bool ledgerOk = true;
  std::string integrity;             // "ok" or what is wrong
  std::vector<std::string> problems; // frozen diffs, tampering
  std::string pendingStep;           // an interrupted step, "" when none
  std::string recovery;              // what the next call will do about it
  std::string lastValidation;        // decision of the open round's last validation
  std::vector<NextStep> next;
};

// A campaign found under the workspace (campaign_status without a campaign_dir).
struct CampaignListing {
  std::string campaignDir, campaignName;
  Phase phase = Phase::DefineTarget;
  int lastRound = 0;
  std::optional<int> openRound;
};

// ---- queries (the turbo helper's fields; the tools layer names them) ----
struct TrendRowView {
  int round = 0;
  std::string status, description;
  std::optional<double> fwdAvg, fwdPeak, bwdAvg, bwdPeak, stepGeomean;
  std::optional<double> vsBaselineStepPct, vsBaselineFwdPct, vsBaselineBwdPct;
  std::string keyFinding;
};
struct TrendResult {
  std::string campaignDir, source;
  std::vector<TrendRowView> rows;
  int rollbackStreak = 0;
  std::optional<int> currentBestRound;
  std::map<std::string, double> currentBestScore;
};
struct IneffectiveItem {
  int round = 0;
  std::string direction, reason;
  std::vector<std::string> modifiedFiles;
};
struct IneffectiveResult {
  std::string campaignDir, source;
  std::vector<IneffectiveItem> items;
};
struct BestSummaryResult {
  std::string campaignDir;
  std::optional<int> round;
  std::string source, body, note;
};
struct TipsQueryRequest {
  std::string campaignDir;  // optional: op/backend/gpu from its manifest
  std::string op, backend, gpu, keyword, tipsRoot;
};
struct TipsQueryResult {
  std::string path;
  std::vector<std::pair<std::string, std::string>> items;  // heading, body
  std::string note;
};
struct AppendTipRequest {
  std::string campaignDir;
  std::string op, backend, gpu, tipsRoot;
  std::optional<int> round;
  std::string status, context, signal, takeaway, applicability;
};
struct AppendTipResult {
  std::string path;
  bool ok = true;
};

}  // namespace kopt::campaign
