#pragma once
// state.json: where the state machine stands. Derived from the ledger (the source of truth) and
// written atomically after each step, so a restart reads it in one piece.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/frozen_files.h"
#include "campaign/pending_step.h"
#include "campaign/phase.h"

namespace kopt::campaign {

struct OpenRound {
  int number = 0;
  std::string lineageHead;                 // commit the round's diff is measured against
  std::vector<std::string> declaredFiles;  // repo-relative files the hypothesis may touch
  bool configOnly = false;
  bool operator==(const OpenRound& o) const {
    return number == o.number && lineageHead == o.lineageHead &&
           declaredFiles == o.declaredFiles && configOnly == o.configOnly;
  }
};

struct CampaignState {
  int version = 1;
  Phase phase = Phase::DefineTarget;
  std::string confirmedBy;   // who confirmed the target ("elicitation:<client>" or a name)
  int lastRound = 0;         // highest round number used (1 = baseline); numbers never reused
  std::optional<OpenRound> openRound;
  std::optional<int> bestRound;
  std::string bestCommit;
  std::string baselineCommit;
  int consecutiveRollbacks = 0;
  std::optional<PendingStep> pending;  // the step in flight; on restart it is resumed or re-run
  FrozenSet frozen;
  unsigned long long ledgerSeq = 0;  // last ledger event reflected in this state
  bool operator==(const CampaignState& o) const;
};

nlohmann::json toJson(const CampaignState& s);
// Error text names the field: "state.json: field 'phase': 'FOO' is not a phase (one of ...)".
std::variant<CampaignState, std::string> campaignStateFromJson(const nlohmann::json& j);

class StateStore {
 public:
  explicit StateStore(std::filesystem::path stateJson);
  bool exists() const;
  // Error when missing, unreadable, not JSON, or a field is wrong; the message names the file.
  std::variant<CampaignState, std::string> load() const;
  void save(const CampaignState& s) const;  // atomic; throws util::IoError
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kopt::campaign
