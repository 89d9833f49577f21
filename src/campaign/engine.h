#pragma once
// The referee: one method per campaign tool, typed requests in, Outcome<result> out, no JSON
// (the domain server of clangd's design; src/tools is the protocol binding).
//
// Every call opens the campaign from disk (ledger verified, state replayed, interrupted steps
// recovered), so a server killed at any moment resumes exactly where the ledger says, and the
// one-process-per-call `kopt call` behaves like a long-lived server. State-changing calls hold an
// exclusive lock on the campaign for their whole duration; a second one meanwhile is refused as
// Busy (queries never wait).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "campaign/engine_types.h"
#include "campaign/manifest.h"
#include "campaign/refusal.h"
#include "exec/executor.h"
#include "util/time_format.h"

namespace kopt::campaign {

struct EngineOptions {
  // Relative campaign_dir / repo_path arguments resolve here; every path must stay inside it.
  std::filesystem::path workspaceRoot;
  // Tips root when the manifest has none (default: <workspace>/.kopt/tips).
  std::filesystem::path defaultTipsRoot;
  // Quick-harness templates (quick_test_bench.py); prepare_environment copies one in when the
  // manifest's quick_command names ${CAMPAIGN_DIR}/quick_test_bench.py. Empty: none available.
  std::filesystem::path harnessTemplateDir;
  // The executor for a manifest (default: exec::makeExecutor from the manifest's executor block).
  std::function<std::unique_ptr<exec::Executor>(const Manifest&)> executorFactory;
  // Secret per-pair seeds (default: /dev/urandom). Tests pin it.
  std::function<std::uint64_t()> seedSource;
  // "now" (default: the system clock). Tests pin it.
  std::function<util::SystemTime()> clock;
  // Called at named points of every multi-step operation ("decide:after-git", ...). Crash tests
  // make it throw (unit tests) or SIGKILL the server (e2e, KOPT_FAULT_POINT) to die exactly there.
  std::function<void(const std::string& point)> faultInjection;
  // Where the campaigns' ledger keys live, outside every campaign (default: defaultLedgerKeyDir(),
  // the user's state directory). Tests point it into their temporary workspace.
  std::filesystem::path ledgerKeyDir;
  // A long-lived server (`kopt serve`): run_tests starts the next validate_round's bench workers
  // while the tests run (workers_ahead.h). Off for a one-shot `kopt call`, which exits before
  // any look could take them.
  bool startWorkersAhead = false;
};

class CampaignEngine {
 public:
  explicit CampaignEngine(EngineOptions options);
  ~CampaignEngine();
  CampaignEngine(const CampaignEngine&) = delete;
  CampaignEngine& operator=(const CampaignEngine&) = delete;

  const EngineOptions& options() const { return options_; }

  // Lifecycle (docs/campaign-engine.md's table).
  Outcome<DefineTargetResult> defineTarget(const DefineTargetRequest& request);
  Outcome<TargetSummary> targetSummary(const std::string& campaignDir);
  Outcome<ConfirmTargetResult> confirmTarget(const ConfirmTargetRequest& request);
  Outcome<PrepareEnvironmentResult> prepareEnvironment(const std::string& campaignDir);
  Outcome<ReadTipsResult> readTips(const std::string& campaignDir);
  Outcome<BaselineResult> runBaseline(const std::string& campaignDir, const CallContext& ctx);
  Outcome<BeginRoundResult> beginRound(const BeginRoundRequest& request);
  Outcome<StepResult> rebuildKernel(const StepRequest& request, const CallContext& ctx);
  Outcome<StepResult> runTests(const StepRequest& request, const CallContext& ctx);
  Outcome<BenchResult> runQuickBench(const BenchRequest& request, const CallContext& ctx);
  Outcome<ValidateResult> validateRound(const ValidateRequest& request, const CallContext& ctx);
  Outcome<AcceptOrRevertResult> acceptOrRevert(const AcceptOrRevertRequest& request, const CallContext& ctx);
  Outcome<TerminationResult> terminationCheck(const TerminationRequest& request);
  Outcome<FinalAcceptanceResult> finalAcceptance(const FinalAcceptanceRequest& request, const CallContext& ctx);
  Outcome<ReportResult> report(const std::string& campaignDir);

  // Queries (any phase after define_target; never take the campaign lock).
  Outcome<StatusResult> campaignStatus(const std::string& campaignDir);
  // Campaigns under the workspace: <ws>/.kopt/campaigns/* and <ws>/<dir>/.kopt/campaigns/* (for a
  // restarted agent that lost track of its campaign_dir).
  std::vector<CampaignListing> listCampaigns();
  Outcome<TrendResult> queryTrend(const std::string& campaignDir, int limit);
  Outcome<IneffectiveResult> listIneffectiveDirections(const std::string& campaignDir);
  Outcome<BestSummaryResult> readBestSummary(const std::string& campaignDir);
  Outcome<TipsQueryResult> queryTips(const TipsQueryRequest& request);
  Outcome<AppendTipResult> appendTip(const AppendTipRequest& request);

  // For parse_bench_csv's `campaign` argument: the frozen header, shape list and metric.
  struct SchemaInfo {
    std::string frozenHeader;
    std::vector<std::string> labels;
    std::string primaryMetric;
    std::filesystem::path campaignDir;  // resolved: parse_bench_csv looks for relative paths here first
  };
  std::optional<SchemaInfo> schemaInfo(const std::string& campaignDir);

 private:
  EngineOptions options_;
};

}  // namespace kopt::campaign
