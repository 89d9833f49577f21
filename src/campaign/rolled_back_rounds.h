#pragma once
// The rolled-back rounds, told once for every place that lists them: optimize.md's "Verified
// Ineffective Directions", the list_ineffective_directions tool, and the report's ledger record.
// A round the gate proved faster on some shape (IMPROVED) but rolled back for another reason is
// kept apart from the ineffective directions (round_vocabulary.h, DirectionOutcome): listing it
// there would teach the agent to drop a direction that works.
#include <optional>
#include <string>
#include <vector>

#include "campaign/records/record_types.h"
#include "campaign/round_log.h"

namespace kopt::campaign {

// A shape of the round that the gate proved faster than the best it was compared with.
struct ProvenShape {
  std::string label;
  std::optional<double> gainPct, ciLowPct, ciHighPct;  // vs the best, percent

  std::string describe() const;  // "s65k IMPROVED +131.00% (CI +123.00% .. +139.00%)"
};

struct RolledBackRound {
  int round = 0;
  std::string direction;                   // the hypothesis' change, else the round's description
  std::string reason;                      // the decision's reason, and the agent's root cause
  std::vector<std::string> modifiedFiles;  // the files the rollback restored, else the hypothesis' files
  std::vector<ProvenShape> provenFaster;   // empty: an ineffective direction

  DirectionOutcome outcome() const { return *directionOutcome(RoundStatus::RolledBack, !provenFaster.empty()); }
};

// The shapes of `record` the gate proved faster (verdict IMPROVED on a PASS row).
std::vector<ProvenShape> provenFaster(const records::RoundRecord& record);

// Every rolled-back round of the log, in round order.
std::vector<RolledBackRound> rolledBackRounds(const RoundLog& log);

// The ones with `outcome`: DirectionOutcome::Ineffective for the ineffective directions.
std::vector<RolledBackRound> rolledBackRounds(const RoundLog& log, DirectionOutcome outcome);

}  // namespace kopt::campaign
