#include "campaign/round_vocabulary.h"

#include "util/name_table.h"
#include "util/text.h"

namespace kopt::campaign {

namespace {
constexpr util::EnumName<RoundStatus> kRoundStatusNames[] = {
    {RoundStatus::Baseline, "BASELINE"},
    {RoundStatus::Accepted, "ACCEPTED"},
    {RoundStatus::AcceptedWithNote, "ACCEPTED WITH NOTE"},
    {RoundStatus::RolledBack, "ROLLED BACK"},
};
constexpr util::EnumName<Rule11Bucket> kBucketNames[] = {
    {Rule11Bucket::K1, "K1"}, {Rule11Bucket::K2, "K2"}, {Rule11Bucket::K3, "K3"}, {Rule11Bucket::K4, "K4"},
    {Rule11Bucket::W1, "W1"}, {Rule11Bucket::W2, "W2"}, {Rule11Bucket::W3, "W3"},
};
constexpr util::EnumName<Rule11Bucket> kBucketMeanings[] = {
    {Rule11Bucket::K1, "kernel-internal"},
    {Rule11Bucket::K2, "layout variants"},
    {Rule11Bucket::K3, "single-launch fusion"},
    {Rule11Bucket::K4, "same-call data flow"},
    {Rule11Bucket::W1, "weight cache keyed on id(weight)+_version (gain bounded)"},
    {Rule11Bucket::W2, "cache keyed on activation/grad identity (forbidden)"},
    {Rule11Bucket::W3, "generic memoization around forward/backward (forbidden)"},
};
constexpr util::EnumName<RoundVerdict> kRoundVerdictNames[] = {
    {RoundVerdict::Accept, "ACCEPT"},
    {RoundVerdict::AcceptWithNote, "ACCEPT_WITH_NOTE"},
    {RoundVerdict::Rollback, "ROLLBACK"},
    {RoundVerdict::Audit, "AUDIT"},
};
constexpr util::EnumName<TransferDecision> kTransferDecisionNames[] = {
    {TransferDecision::None, "-"},
    {TransferDecision::AcceptAsReal, "ACCEPT-as-real"},
    {TransferDecision::AcceptWithAsterisk, "ACCEPT-with-asterisk"},
    {TransferDecision::RejectAsOverfit, "REJECT-as-overfit"},
};
}  // namespace

const char* toString(RoundStatus s) { return util::nameIn(kRoundStatusNames, s, "?"); }

bool isAccepted(RoundStatus s) { return s == RoundStatus::Accepted || s == RoundStatus::AcceptedWithNote; }

std::optional<DirectionOutcome> directionOutcome(RoundStatus status, bool provedAShapeFaster) {
  if (status == RoundStatus::Baseline) return std::nullopt;
  if (isAccepted(status)) return DirectionOutcome::Effective;
  return provedAShapeFaster ? DirectionOutcome::RolledBackWithProvenShape : DirectionOutcome::Ineffective;
}

const char* toString(Rule11Bucket b) { return util::nameIn(kBucketNames, b, "?"); }

std::string bucketCell(const std::optional<Rule11Bucket>& b) { return b ? toString(*b) : "-"; }

std::optional<Rule11Bucket> rule11BucketFromString(const std::string& text) {
  return util::valueNamed(kBucketNames, util::toUpper(util::trim(text)));
}

bool isAllowed(Rule11Bucket b) { return b != Rule11Bucket::W2 && b != Rule11Bucket::W3; }

const char* describe(Rule11Bucket b) { return util::nameIn(kBucketMeanings, b, "?"); }

const char* toString(RoundVerdict v) { return util::nameIn(kRoundVerdictNames, v, "ROLLBACK"); }

std::optional<RoundVerdict> roundVerdictFromString(std::string_view text) {
  return util::valueNamed(kRoundVerdictNames, text);
}

bool isAccepting(RoundVerdict v) { return v == RoundVerdict::Accept || v == RoundVerdict::AcceptWithNote; }

bool allowsAccept(RoundVerdict v) { return isAccepting(v) || v == RoundVerdict::Audit; }

const char* toString(TransferDecision d) { return util::nameIn(kTransferDecisionNames, d, "?"); }

std::optional<TransferDecision> transferDecisionFromString(const std::string& text) {
  return util::valueNamed(kTransferDecisionNames, text);
}

}  // namespace kopt::campaign
