#pragma once
// The ledger folded round by round, once, when a campaign opens (and again after each append):
// what each round built, tested, measured and decided, the records of the finished rounds, and the
// last termination check. The engine's questions ("did the tests pass on these files?", "which
// verdict stands?") are asked here instead of by scanning the events backwards at every call site.
//
// It points into the events it was folded from: those must outlive it and must not move (a
// std::deque keeps its elements in place when one is appended). add() keeps what it handed out
// (a RoundProgress* stays the round's as more of its events are folded).
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/ledger_events.h"

namespace kopt::campaign {

// One round since its round_begun (the events a round number carries before it began are not its).
struct RoundProgress {
  int number = 0;
  const RoundBegun* begun = nullptr;
  const BuildFinished* lastBuild = nullptr;
  const TestsFinished* lastTests = nullptr;
  std::vector<const RoundValidated*> verdicts;  // every validate_round of the round, in order
  // The last verdict, unless a build, test run or bench of the round came after it: a fix inside
  // the round makes the verdict stale, exactly as folding the ledger into the phase does.
  const RoundValidated* standingVerdict = nullptr;
  int measurements = 0;  // bench_finished and round_validated events: the measurement tags used
  const RoundDecided* decided = nullptr;

  const RoundValidated* lastVerdict() const { return verdicts.empty() ? nullptr : verdicts.back(); }
  // A verdict measured on exactly these kernel files, or nullptr.
  const RoundValidated* verdictOn(const std::string& fingerprint) const;
};

class RoundLog {
 public:
  RoundLog() = default;
  // Folds the events up to and including `upToSeq` (all of them without it).
  explicit RoundLog(const std::deque<TypedEvent>& events, std::optional<std::uint64_t> upToSeq = std::nullopt);

  // Folds one more event (the next one appended): what the log handed out stays valid.
  void add(const TypedEvent& e) { fold(e); }

  const RoundProgress* round(int number) const;  // nullptr for a round that never began
  const BaselineRecorded* baseline() const { return baseline_; }

  // The record of every finished round (the baseline, then each decision), in ledger order.
  const std::vector<const records::RoundRecord*>& records() const { return records_; }
  // Round `number`'s record (1: the baseline), or nullptr while it is not finished.
  const records::RoundRecord* record(int number) const;
  // The record of the current best: the baseline or the last accepted round.
  const records::RoundRecord* bestRecord() const { return best_; }
  const std::vector<const RoundDecided*>& decisions() const { return decisions_; }
  int acceptedRounds() const;
  int rolledBackRounds() const;

  // The last termination_check since the last finished round, or nullptr.
  const TerminationChecked* terminationSinceLastRound() const { return termination_; }
  // What kopt last built in one of its worktrees ("best", "baseline"), or nullptr.
  const WorktreeBuilt* lastWorktreeBuild(const std::string& tree) const;

 private:
  void fold(const TypedEvent& e);
  void finishRound(int number, const records::RoundRecord& record, bool best);

  std::map<int, RoundProgress> rounds_;
  const BaselineRecorded* baseline_ = nullptr;
  std::vector<const records::RoundRecord*> records_;
  std::map<int, const records::RoundRecord*> recordByRound_;
  const records::RoundRecord* best_ = nullptr;
  std::vector<const RoundDecided*> decisions_;
  const TerminationChecked* termination_ = nullptr;
  std::map<std::string, const WorktreeBuilt*> worktreeBuilds_;
};

}  // namespace kopt::campaign
