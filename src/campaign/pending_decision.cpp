#include "campaign/pending_decision.h"

#include <nlohmann/json.hpp>

#include "campaign/engine_record_json.h"

namespace kopt::campaign {

namespace {

using json = nlohmann::json;

bool allowsAccept(const std::string& decision) {
  return decision == "ACCEPT" || decision == "ACCEPT_WITH_NOTE" || decision == "AUDIT";
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& x : *it) out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  return out;
}

}  // namespace

std::string unbackedDecisionReason(const PendingStep& p, const DecisionContext& c) {
  const std::string round = "round-" + std::to_string(p.round);
  if (!c.openRound) return "no round is open in the ledger";
  if (c.openRound->number != p.round) {
    return "the ledger's open round is round-" + std::to_string(c.openRound->number) + ", not " + round;
  }
  const json& d = p.detail;
  if (str(d, "lineage_head") != c.openRound->lineageHead) {
    return "its head commit is not the one begin_round recorded for " + round;
  }
  if (strings(d, "declared") != c.openRound->declaredFiles) return "its files are not the ones " + round + " declared";
  if (strings(d, "scope") != c.kernelScope) return "its scope is not the manifest's kernel_source";
  const RoundProgress* progress = c.rounds ? c.rounds->round(p.round) : nullptr;
  const RoundValidated* verdict = progress ? progress->standingVerdict : nullptr;
  if (!verdict) return "the ledger holds no standing verdict of validate_round for " + round;
  const std::string& decision = verdict->decision;
  auto accept = d.find("accept");
  if (accept == d.end() || !accept->is_boolean()) return "it does not say whether it accepts";
  if (accept->get<bool>() && !allowsAccept(decision)) {
    return "it accepts " + round + ", whose verdict in the ledger is " + decision;
  }
  // The record about to be written must carry the verdict's numbers, not numbers of its own.
  const auto record = d.find("record");
  if (record == d.end() || !record->is_object()) return "its record is missing";
  // Both through the same round trip, so that only a different value can differ.
  json mine;
  const json theirs = detail::roundRecordToJson(verdict->record);
  try {
    mine = detail::roundRecordToJson(detail::roundRecordFromJson(*record));
  } catch (const std::exception&) {
    return "its record does not parse as a round record";
  }
  for (const char* key : {"number", "validation", "shapes", "aggregate", "gate_verdict", "flags"}) {
    if (mine.value(key, json()) != theirs.value(key, json())) {
      return std::string("its record's '") + key + "' differs from the verdict recorded by validate_round";
    }
  }
  const bool accepted = str(*record, "status").rfind("ACCEPTED", 0) == 0;
  if (accepted != accept->get<bool>()) return "its record's status contradicts its decision";
  // An accept commits the working tree: it must be the tree that was measured (until the commit
  // is made; after it, the tree is the commit).
  const auto gitDone = d.find("git_done");
  const bool committed = gitDone != d.end() && gitDone->is_boolean() && gitDone->get<bool>();
  if (accept->get<bool>() && !committed && c.treeFingerprint &&
      c.treeFingerprint() != verdict->fingerprint) {
    return "the kernel files differ from the ones validate_round measured for " + round;
  }
  return {};
}

}  // namespace kopt::campaign
