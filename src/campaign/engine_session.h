#pragma once
// One opened campaign, for the duration of one engine call: paths, the manifest as frozen, the
// ledger and the state folded from it, and (for state-changing calls) the campaign lock.
// Internal to the engine (src/campaign/engine*.cpp); the tools layer never sees it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_paths.h"
#include "campaign/engine.h"
#include "campaign/engine_phase_table.h"
#include "campaign/ledger.h"
#include "campaign/manifest.h"
#include "campaign/refusal.h"
#include "campaign/state_store.h"
#include "util/file_lock.h"

namespace kopt::campaign::detail {

using json = nlohmann::json;

// Ledger event types (the payload of each is documented where it is appended).
namespace ev {
inline constexpr const char* kTargetDefined = "target_defined";
inline constexpr const char* kTargetConfirmed = "target_confirmed";
inline constexpr const char* kEnvironmentPrepared = "environment_prepared";
inline constexpr const char* kTipsRead = "tips_read";
inline constexpr const char* kBaselineRecorded = "baseline_recorded";
inline constexpr const char* kRoundBegun = "round_begun";
inline constexpr const char* kBuildFinished = "build_finished";
inline constexpr const char* kTestsFinished = "tests_finished";
inline constexpr const char* kBenchFinished = "bench_finished";
inline constexpr const char* kRoundValidated = "round_validated";
inline constexpr const char* kRoundDecided = "round_decided";
inline constexpr const char* kTerminationChecked = "termination_checked";
inline constexpr const char* kFinalAcceptance = "final_acceptance_done";
inline constexpr const char* kReportWritten = "report_written";
inline constexpr const char* kTipAppended = "tip_appended";
inline constexpr const char* kPendingDiscarded = "pending_discarded";  // a forged step in state.json, dropped
// kopt built a worktree it measures ("best", "baseline"): tree, commit, build (sha256 of the build
// command), content (worktreeContentFingerprint after the build). A later measurement reuses the
// build only while the tree still hashes to it.
inline constexpr const char* kWorktreeBuilt = "worktree_built";
}  // namespace ev

enum class OpenMode { Query, Mutate };

struct Session {
  const EngineOptions* options = nullptr;
  CampaignTool tool = CampaignTool::DefineTarget;  // the calling tool (Mutate), for refusals
  std::string toolLabel;                           // its name ("campaign_status" for queries)
  CampaignPaths paths;
  std::string name;
  std::filesystem::path repo;  // the repository's top level
  Manifest manifest;
  std::string manifestSha;
  CampaignState state;
  std::vector<LedgerEvent> events;
  std::unique_ptr<Ledger> ledger;
  std::optional<util::FileLock> lock;
  std::vector<std::string> recoveryNotes;  // what opening repaired (torn tail, interrupted step)
  std::optional<Refusal> recoveryRefusal;  // recovery found a forged step: the call is refused with this
  std::uint64_t recordsSeq = 0;  // the last event whose records state.json says were written

  // Appends one event (fsync'ed), folds it into the state, writes the records it implies
  // (idempotently) and saves state.json. Returns the event's seq.
  std::uint64_t record(const std::string& type, std::optional<int> round, json payload);
  // Marks a step as started (state.json, atomically) so a restart knows what was interrupted.
  void beginStep(int round, const std::string& step, json detail = json::object());
  void clearStep();
  void saveState();

  // A named point of a multi-step operation, for crash tests (EngineOptions::faultInjection).
  void checkpoint(const std::string& point) const {
    if (options && options->faultInjection) options->faultInjection(point);
  }

  std::string now() const;     // "YYYY-MM-DD HH:MM" (records)
  std::string nowIso() const;  // ISO-8601 UTC
  // The last event of `type` (optionally for `round`), or nullptr.
  const LedgerEvent* last(const std::string& type, std::optional<int> round = std::nullopt) const;
  // Events of the open round after its round_begun, in order.
  std::vector<const LedgerEvent*> roundEvents(int round) const;

  Refusal refuse(RefusalCode code, std::string why, std::string toolToCall = {}) const;
  PlaceholderValues placeholders(const std::filesystem::path& tree) const;
};

// Folds the ledger into the state machine's state (pure). Pending steps are not in the ledger.
CampaignState foldLedger(const std::vector<LedgerEvent>& events);
// The event types that complete a pending step of that name.
bool completesStep(const std::string& step, const std::string& eventType);

// Resolves a user path (campaign_dir, repo_path) inside the workspace root.
Outcome<std::filesystem::path> resolveWorkspacePath(const EngineOptions& options, const std::string& userPath,
                                                    const std::string& argument, bool mustExist);

// The manifest's tips_root resolved inside the workspace like every path argument (it was joined
// as written, so append_tip and read_tips reached wherever a manifest pointed); relative paths are
// the workspace's. options.defaultTipsRoot when the manifest sets none.
Outcome<std::filesystem::path> manifestTipsRoot(const EngineOptions& options, const Manifest& manifest);

// Opens the campaign at `campaignDir` for `tool`: resolves the path, takes the lock (Mutate),
// verifies the ledger chain (repairing a torn tail), folds the state, checks manifest.yaml against
// its recorded hash, replays record side effects the last run did not finish, and (Mutate) checks
// the phase table. Interrupted steps are left in state.pending for the caller's recovery.
Outcome<std::unique_ptr<Session>> openSession(const EngineOptions& options, const std::string& campaignDir,
                                              CampaignTool tool, OpenMode mode, const std::string& toolLabel = {});

// Writes the records an event implies (summary.md, decision.json, trend row, optimize.md block,
// ...). Idempotent: safe to run again for an event whose records were (partly) written.
void writeEventRecords(Session& session, const LedgerEvent& event);
// Gives the session's ledger its key (ledger_key.h): the campaign's key file, or a new one when
// `create` (a new campaign). A refusal when the ledger is keyed and its key is missing or unreadable.
std::optional<Refusal> keyLedger(Session& session, bool create);

// The campaign's one-writer lock file: under kopt's state directory, beside the ledger keys and
// named like them by the campaign directory's path, so it is not in the agent's workspace
// (unlinking <campaign>/.kopt.lock let two validate_round run at once and both verdicts be
// recorded). Without a state directory: <campaign>/.kopt.lock.
std::filesystem::path campaignLockPath(const EngineOptions& options, const CampaignPaths& paths);
// tryAcquire on campaignLockPath: nullopt while another call holds it.
std::optional<util::FileLock> tryLockCampaign(const EngineOptions& options, const CampaignPaths& paths);

}  // namespace kopt::campaign::detail
