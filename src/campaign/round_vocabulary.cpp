#include "campaign/round_vocabulary.h"

#include <cstddef>

#include "util/text.h"

namespace kopt::campaign {

const char* toString(RoundStatus s) {
  switch (s) {
    case RoundStatus::Baseline: return "BASELINE";
    case RoundStatus::Accepted: return "ACCEPTED";
    case RoundStatus::AcceptedWithNote: return "ACCEPTED WITH NOTE";
    case RoundStatus::RolledBack: return "ROLLED BACK";
  }
  return "?";
}

bool isAccepted(RoundStatus s) { return s == RoundStatus::Accepted || s == RoundStatus::AcceptedWithNote; }

const char* toString(Rule11Bucket b) {
  switch (b) {
    case Rule11Bucket::K1: return "K1";
    case Rule11Bucket::K2: return "K2";
    case Rule11Bucket::K3: return "K3";
    case Rule11Bucket::K4: return "K4";
    case Rule11Bucket::W1: return "W1";
    case Rule11Bucket::W2: return "W2";
    case Rule11Bucket::W3: return "W3";
  }
  return "?";
}

std::string bucketCell(const std::optional<Rule11Bucket>& b) { return b ? toString(*b) : "-"; }

std::optional<Rule11Bucket> rule11BucketFromString(const std::string& text) {
  std::string t = util::toUpper(util::trim(text));
  for (Rule11Bucket b : {Rule11Bucket::K1, Rule11Bucket::K2, Rule11Bucket::K3, Rule11Bucket::K4,
                         Rule11Bucket::W1, Rule11Bucket::W2, Rule11Bucket::W3}) {
    if (t == toString(b)) return b;
  }
  return std::nullopt;
}

bool isAllowed(Rule11Bucket b) { return b != Rule11Bucket::W2 && b != Rule11Bucket::W3; }

const char* describe(Rule11Bucket b) {
  switch (b) {
    case Rule11Bucket::K1: return "kernel-internal";
    case Rule11Bucket::K2: return "layout variants";
    case Rule11Bucket::K3: return "single-launch fusion";
    case Rule11Bucket::K4: return "same-call data flow";
    case Rule11Bucket::W1: return "weight cache keyed on id(weight)+_version (gain bounded)";
    case Rule11Bucket::W2: return "cache keyed on activation/grad identity (forbidden)";
    case Rule11Bucket::W3: return "generic memoization around forward/backward (forbidden)";
  }
  return "?";
}

namespace {
// The value of `all` whose toString is `text`: parsing reads the same name table as printing.
template <typename Enum, std::size_t N>
std::optional<Enum> byName(const std::string& text, const Enum (&all)[N]) {
  for (Enum e : all) {
    if (text == toString(e)) return e;
  }
  return std::nullopt;
}
}  // namespace


const char* toString(TransferDecision d) {
  switch (d) {
    case TransferDecision::None: return "-";
    case TransferDecision::AcceptAsReal: return "ACCEPT-as-real";
    case TransferDecision::AcceptWithAsterisk: return "ACCEPT-with-asterisk";
    case TransferDecision::RejectAsOverfit: return "REJECT-as-overfit";
  }
  return "?";
}

std::optional<TransferDecision> transferDecisionFromString(const std::string& text) {
  return byName(text, kTransferDecisions);
}

}  // namespace kopt::campaign
