#include "campaign/pending_decision.h"

#include <nlohmann/json.hpp>

#include "campaign/engine_record_json.h"

namespace kopt::campaign {

namespace {

using json = nlohmann::json;

}  // namespace

std::string unbackedDecisionReason(const PendingStep& p, const DecisionContext& c) {
  const std::string round = "round-" + std::to_string(p.round);
  if (!c.openRound) return "no round is open in the ledger";
  if (c.openRound->number != p.round) {
    return "the ledger's open round is round-" + std::to_string(c.openRound->number) + ", not " + round;
  }
  const PendingDecision* d = p.decision();
  if (!d) return "it is not a decision";
  if (d->lineageHead != c.openRound->lineageHead) {
    return "its head commit is not the one begin_round recorded for " + round;
  }
  if (d->declared != c.openRound->declaredFiles) return "its files are not the ones " + round + " declared";
  if (d->scope != c.kernelScope) return "its scope is not the manifest's kernel_source";
  const RoundProgress* progress = c.rounds ? c.rounds->round(p.round) : nullptr;
  const RoundValidated* verdict = progress ? progress->standingVerdict : nullptr;
  if (!verdict) return "the ledger holds no standing verdict of validate_round for " + round;
  const RoundVerdict decision = verdict->decision;
  if (!d->accept) return "it does not say whether it accepts";
  const bool accept = *d->accept;
  if (accept && !allowsAccept(decision)) {
    return "it accepts " + round + ", whose verdict in the ledger is " + toString(decision);
  }
  // The record about to be written must carry the verdict's numbers, not numbers of its own.
  if (!d->record) return "its record is missing";
  // Both through the same round trip, so that only a different value can differ.
  records::RoundRecord parsed;
  try {
    parsed = detail::roundRecordFromJson(*d->record);
  } catch (const std::exception&) {
    return "its record does not parse as a round record";
  }
  const json mine = detail::roundRecordToJson(parsed);
  const json theirs = detail::roundRecordToJson(verdict->record);
  for (const char* key : {"number", "validation", "shapes", "aggregate", "gate_verdict", "flags"}) {
    if (mine.value(key, json()) != theirs.value(key, json())) {
      return std::string("its record's '") + key + "' differs from the verdict recorded by validate_round";
    }
  }
  if (isAccepted(parsed.status) != accept) return "its record's status contradicts its decision";
  // An accept commits the working tree: it must be the tree that was measured (until the commit
  // is made; after it, the tree is the commit).
  if (accept && !d->git && c.treeFingerprint && c.treeFingerprint() != verdict->fingerprint) {
    return "the kernel files differ from the ones validate_round measured for " + round;
  }
  return {};
}

}  // namespace kopt::campaign
