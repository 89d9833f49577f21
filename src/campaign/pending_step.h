#pragma once
// The step state.json says was started and not known to be finished, typed per kind of step.
// On restart the engine resumes exactly this step (docs/campaign-engine.md, "Restart safety"): a command
// (build, tests) is re-run, a measurement's partial files are discarded and it is re-run, a
// decision (accept_or_revert) is completed from what the marker holds, once the ledger backs it.
//
// state.json spells the step's particulars in a "detail" object; pending_step.cpp is the one
// place those keys are spelled. Its encoding is the one kopt has always written, so campaigns
// started by an earlier kopt open unchanged.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::campaign {

// A build or a test run: nothing to keep; an interrupted one is run again.
struct PendingCommand {
  bool operator==(const PendingCommand&) const { return true; }
};

// A measurement (baseline, bench, validate, final): the tags its runs are written under, so an
// interrupted one's partial files can be found and discarded.
struct PendingMeasurement {
  std::string tag;
  std::vector<std::string> tags;  // when it writes under several tags (the baseline's A/A and quick)
  std::string artifacts;          // its own artifacts directory; "" = the round's
  // The tags whose files an interrupted run leaves behind.
  std::vector<std::string> tagsToDiscard() const;
  bool operator==(const PendingMeasurement& o) const {
    return tag == o.tag && tags == o.tags && artifacts == o.artifacts;
  }
};

// What an accept's commit or a rollback's restore did, once done.
struct GitApplied {
  std::string commit;                  // the accepted commit, or the head a rollback restored
  std::vector<std::string> restored;   // files under the kernel scope that changed since the head
  bool operator==(const GitApplied& o) const { return commit == o.commit && restored == o.restored; }
};

// An accept_or_revert: the whole decision, written before anything changes, and its sub-steps
// marked as they complete (docs/campaign-engine.md, "Restart safety"). Anyone can write state.json, so
// recovery completes it only when the ledger backs it (pending_decision.h); the fields that check
// reads decode leniently, so that a forged marker reaches it and is refused by name.
struct PendingDecision {
  std::optional<bool> accept;          // absent when the marker does not say (a forged one)
  std::string lineageHead;             // the round's head commit
  std::vector<std::string> scope;      // the manifest's kernel_source
  std::vector<std::string> declared;   // the files the round declared
  std::optional<nlohmann::json> record;  // the round record about to be written, as JSON until checked
  std::optional<std::string> message;  // an accept's commit message
  bool snapshotDone = false;           // the kernel snapshot is in the round directory
  std::optional<GitApplied> git;       // the commit or restore is done
  bool operator==(const PendingDecision& o) const {
    return accept == o.accept && lineageHead == o.lineageHead && scope == o.scope && declared == o.declared &&
           record == o.record && message == o.message && snapshotDone == o.snapshotDone && git == o.git;
  }
};

using PendingDetail = std::variant<PendingCommand, PendingMeasurement, PendingDecision>;

// A step that was started and not known to be finished. `step` names are the engine's ("build",
// "tests", "bench", "validate", "baseline", "final", "decide"); `detail` is the kind that name
// implies (pendingDetailKindFor).
struct PendingStep {
  int round = 0;
  std::string step;
  std::string startedAt;        // ISO-8601 UTC
  PendingDetail detail;
  std::uint64_t afterSeq = 0;   // the last ledger event when it began: a later completing event finishes it
  bool operator==(const PendingStep& o) const {
    return round == o.round && step == o.step && startedAt == o.startedAt && detail == o.detail &&
           afterSeq == o.afterSeq;
  }
  const PendingDecision* decision() const { return std::get_if<PendingDecision>(&detail); }
  PendingDecision* decision() { return std::get_if<PendingDecision>(&detail); }
};

// The empty detail of the kind a step of this name carries.
PendingDetail pendingDetailKindFor(const std::string& step);

// state.json's "pending.detail" of `into.step`, decoded into `into.detail` and `into.afterSeq`.
// Returns an error naming the field ("field 'pending.detail.tag' must be a string"), or nothing.
std::optional<std::string> decodePendingDetail(const nlohmann::json& detail, PendingStep& into);
nlohmann::json pendingDetailToJson(const PendingStep& p);

}  // namespace kopt::campaign
