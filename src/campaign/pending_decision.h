#pragma once
// Whether an accept_or_revert found half-done in state.json may be completed. state.json is a
// plain file in the campaign directory: anyone can write a "pending decision" into it, and crash
// recovery completes pending decisions. So recovery trusts only what the hash-chained ledger
// says kopt decided to do: the open round, its head and declared files, and a verdict of
// validate_round that allows the decision, measured on the files that are about to be committed,
// with the same numbers as the record that is about to be written.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "campaign/pending_step.h"
#include "campaign/round_log.h"
#include "campaign/state_store.h"

namespace kopt::campaign {

struct DecisionContext {
  const RoundLog* rounds = nullptr;                  // folded from the verified ledger
  std::optional<OpenRound> openRound;                // as folded from the ledger
  std::vector<std::string> kernelScope;              // the manifest's kernel_source
  std::function<std::string()> treeFingerprint;      // of the kernel files now (only asked for an accept)
};

// "" when `pending` (a "decide" step, its PendingDecision) is backed by the ledger; otherwise why it is not, in one
// sentence that names what is missing or different.
std::string unbackedDecisionReason(const PendingStep& pending, const DecisionContext& context);

}  // namespace kopt::campaign
