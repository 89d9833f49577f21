#pragma once
// One opened campaign, for the duration of one engine call: paths, the manifest as frozen, the
// ledger and the state folded from it, and (for state-changing calls) the campaign lock.
// Internal to the engine (src/campaign/engine*.cpp); the tools layer never sees it.
#include <cstdint>
#include <deque>
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
#include "campaign/ledger_events.h"
#include "campaign/manifest.h"
#include "campaign/refusal.h"
#include "campaign/round_log.h"
#include "campaign/state_store.h"
#include "util/file_lock.h"

namespace kopt::campaign::detail {

using json = nlohmann::json;

enum class OpenMode { Query, Mutate };

// A campaign opened for one tool call: its manifest, state, typed ledger and lock. (mcp::Session
// is the protocol session; this is the referee's.)
struct OpenCampaign {
  const EngineOptions* options = nullptr;
  CampaignTool tool = CampaignTool::DefineTarget;  // the calling tool (Mutate), for refusals
  std::string toolLabel;                           // its name ("campaign_status" for queries)
  CampaignPaths paths;
  std::string name;
  std::filesystem::path repo;  // the repository's top level
  Manifest manifest;
  std::string manifestSha;
  CampaignState state;
  // The ledger's events, decoded. A deque: `rounds` points into it, and appending moves nothing.
  std::deque<TypedEvent> events;
  RoundLog rounds;  // folded from `events`; each append folds one more
  std::unique_ptr<Ledger> ledger;
  std::optional<util::FileLock> lock;
  std::vector<std::string> recoveryNotes;  // what opening repaired (torn tail, interrupted step)
  std::optional<Refusal> recoveryRefusal;  // recovery found a forged step: the call is refused with this
  std::uint64_t recordsSeq = 0;  // the last event whose records state.json says were written

  // Appends one event (fsync'ed), folds it into the state, writes the records it implies
  // (idempotently) and saves state.json. Returns the event's seq.
  // An empty "at" is stamped with now().
  std::uint64_t record(LedgerPayload payload, std::optional<int> round);
  // Marks a step as started (state.json, atomically) so a restart knows what was interrupted.
  // `detail` is the kind the step's name implies (pendingDetailKindFor).
  void beginStep(int round, const std::string& step, PendingDetail detail = PendingCommand{});
  void clearStep();
  void saveState();

  // A named point of a multi-step operation, for crash tests (EngineOptions::faultInjection).
  void checkpoint(const std::string& point) const {
    if (options && options->faultInjection) options->faultInjection(point);
  }

  std::string now() const;     // "YYYY-MM-DD HH:MM" (records)
  std::string nowIso() const;  // ISO-8601 UTC
  // The last event of type E, or nullptr (lastEvent: with its envelope, for its seq or time).
  template <class E>
  const TypedEvent* lastEvent() const {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (it->is<E>()) return &*it;
    }
    return nullptr;
  }
  template <class E>
  const E* last() const {
    const TypedEvent* e = lastEvent<E>();
    return e ? e->as<E>() : nullptr;
  }

  Refusal refuse(RefusalCode code, std::string why, std::string toolToCall = {}) const;
  PlaceholderValues placeholders(const std::filesystem::path& tree) const;
};

// Folds the ledger into the state machine's state (pure). Pending steps are not in the ledger.
CampaignState foldLedger(const std::deque<TypedEvent>& events);
// The same over a ledger's stored events, up to the first that does not decode (a listing or a
// tampering report shows where the intact history stands).
CampaignState foldLedger(const std::vector<LedgerEvent>& ledgerEvents);
// Decodes a verified ledger's events into the session and folds them (rounds, state); the codec's
// error when one does not decode (the session then holds the events before it).
std::optional<CodecError> loadEvents(OpenCampaign& session, const std::vector<LedgerEvent>& ledgerEvents);
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
Outcome<std::unique_ptr<OpenCampaign>> openCampaign(const EngineOptions& options, const std::string& campaignDir,
                                              CampaignTool tool, OpenMode mode, const std::string& toolLabel = {});

// Writes the records an event implies (summary.md, decision.json, trend row, optimize.md block,
// ...). Idempotent: safe to run again for an event whose records were (partly) written.
void writeEventRecords(OpenCampaign& session, const TypedEvent& event);
// Gives the session's ledger its key (ledger_key.h): the campaign's key file, or a new one when
// `create` (a new campaign). A refusal when the ledger is keyed and its key is missing or unreadable.
std::optional<Refusal> keyLedger(OpenCampaign& session, bool create);

// The campaign's one-writer lock file: under kopt's state directory, beside the ledger keys and
// named like them by the campaign directory's path, so it is not in the agent's workspace
// (unlinking <campaign>/.kopt.lock let two validate_round run at once and both verdicts be
// recorded). Without a state directory: <campaign>/.kopt.lock.
std::filesystem::path campaignLockPath(const EngineOptions& options, const CampaignPaths& paths);
// tryAcquire on campaignLockPath: nullopt while another call holds it.
std::optional<util::FileLock> tryLockCampaign(const EngineOptions& options, const CampaignPaths& paths);

}  // namespace kopt::campaign::detail
