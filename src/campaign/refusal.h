#pragma once
// What the campaign engine answers instead of a result. Two kinds, kept apart on purpose:
//  - a Refusal is the referee saying "no" (wrong phase, undeclared files, a frozen file edited,
//    a tampered ledger, ...): the call was understood and breaks the loop's rules. Its text always
//    says what was refused, why, the phase kopt is in, the phase the tool needs and the tool to
//    call instead, so an agent can recover without reading the source.
//  - a ToolFailure is bad input or a broken environment (an argument that does not parse, git
//    missing, a disk error): it names the field and the fix.
// Outcome<T> is T or one of those two; the tools layer turns the latter into isError results.
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "campaign/phase.h"

namespace kopt::campaign {

enum class RefusalCode {
  WrongPhase,            // the tool needs another phase
  RoundOpen,             // begin_round while a round is open
  NoOpenRound,           // a round step without begin_round
  UndeclaredFiles,       // the diff touches files outside the hypothesis' declared set
  EmptyDiff,             // nothing changed and the round is not config-only
  FrozenChanged,         // a frozen file / schema / command / shape list differs from BASELINE
  LedgerTampered,        // the hash chain is broken: a record was edited behind kopt's back
  RecordTampered,        // manifest.yaml or hypothesis.json differs from the hash in the ledger
  InvalidManifest,       // a manifest field is missing or wrong
  InvalidHypothesis,     // begin_round's hypothesis breaks a rule (two changes, W2/W3, ...)
  PathOutside,           // a path escapes the repository / campaign directory / workspace
  Busy,                  // another call holds the campaign (a bench is running)
  NotConfirmed,          // the user did not confirm the target
  StagnationReview,      // two rollbacks in a row: termination_check with new directions first
  MaxIterations,         // T3: no more rounds
  NothingChanged,        // validate_round again with the same tree and a final verdict
  ChangedSinceValidate,  // the working tree changed after validate_round
  HeadMoved,             // git HEAD is not the commit kopt recorded
  NotFound,              // no campaign at that path
  AuditRequired,         // a plausibility flag needs a human's confirmation before ACCEPT
  TerminationNotChecked, // final_acceptance before termination_check said stop
  BaselineBroken,        // the unmodified kernel does not build, pass its tests or its checks
  TooManyChanges,        // a config-only round changes more than one setting (one hypothesis per round)
};
const char* toString(RefusalCode code);  // snake_case: "wrong_phase", ...

struct Refusal {
  RefusalCode code = RefusalCode::WrongPhase;
  std::string tool;                  // the tool that was refused ("begin_round")
  std::string why;                   // one or two sentences
  std::optional<Phase> phaseNow;     // nullopt when there is no campaign yet
  std::vector<Phase> phaseNeeded;    // empty when the phase is not the problem
  std::string toolToCall;            // what to call instead ("" when the fix is outside kopt)
  std::string field;                 // the argument at fault, when any
  std::vector<std::string> details;  // one line each: files outside the set, frozen diffs, ...
};

// "begin_round refused: <why>\n  - <detail>...\nPhase now: ANALYZE. begin_round needs: ANALYZE.
//  Call instead: validate_round."
std::string toText(const Refusal& refusal);

struct ToolFailure {
  std::string message;
  std::string field;  // the argument at fault ("" when none)
  std::string fix;
  std::vector<std::string> details;
};
std::string toText(const ToolFailure& failure);
inline ToolFailure toolFailure(std::string message, std::string field = {}, std::string fix = {}) {
  ToolFailure f;
  f.message = std::move(message);
  f.field = std::move(field);
  f.fix = std::move(fix);
  return f;
}

template <class T>
class Outcome {
 public:
  Outcome(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  Outcome(Refusal refusal) : v_(std::move(refusal)) {}   // NOLINT
  Outcome(ToolFailure failure) : v_(std::move(failure)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  bool refused() const { return v_.index() == 1; }
  bool failed() const { return v_.index() == 2; }
  const T& value() const { return std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const Refusal& refusal() const { return std::get<1>(v_); }
  const ToolFailure& failure() const { return std::get<2>(v_); }
  // The refusal or failure in words ("" when ok).
  std::string errorText() const {
    if (refused()) return toText(refusal());
    if (failed()) return toText(failure());
    return {};
  }

 private:
  std::variant<T, Refusal, ToolFailure> v_;
};

// The refusal or failure of `other` (which must not be ok) as an Outcome<T>.
template <class T, class U>
Outcome<T> errorOf(const Outcome<U>& other) {
  if (other.refused()) return other.refusal();
  return other.failure();
}

// Why a step of a tool call ends the call: the refusal or failure its Outcome will carry. A step
// returns std::optional<Stop>; the tool's glue turns one into its Outcome with outcomeOf.
using Stop = std::variant<Refusal, ToolFailure>;

template <class T>
Outcome<T> outcomeOf(Stop stop) {
  if (auto* r = std::get_if<Refusal>(&stop)) return std::move(*r);
  return std::get<ToolFailure>(std::move(stop));
}

}  // namespace kopt::campaign
