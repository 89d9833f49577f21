#pragma once
// The words a round's outcome is told in, defined once for the records, the tools' results and the
// report: each used to have its own enum with its own spellings ("ROLLED BACK" in the records,
// "ROLLED_BACK" in the report) and the engine mapped one onto the other.
#include <optional>
#include <string>
#include <string_view>

namespace kopt::campaign {

enum class RoundStatus { Baseline, Accepted, AcceptedWithNote, RolledBack };
// "BASELINE", "ACCEPTED", "ACCEPTED WITH NOTE", "ROLLED BACK": the loop contract's words (round
// summary, trend table, optimize log, ledger, tools' results and the report alike; the turbo
// helper matches [A-Z_/ ]+ in the trend table and counts "ROLL*" / "ACC*" prefixes).
const char* toString(RoundStatus s);
bool isAccepted(RoundStatus s);  // Accepted or AcceptedWithNote

// Rule-11 buckets (loop-contract section 6): K1-K4 and W1 allowed, W2/W3 forbidden. A round that
// declared none (the baseline) holds std::nullopt.
enum class Rule11Bucket { K1, K2, K3, K4, W1, W2, W3 };
const char* toString(Rule11Bucket b);                                       // "K1" ...
std::string bucketCell(const std::optional<Rule11Bucket>& b);  // "K1" ..., "-" for none (a table cell)
std::optional<Rule11Bucket> rule11BucketFromString(const std::string& text);  // case-insensitive
bool isAllowed(Rule11Bucket b);        // false for W2, W3
const char* describe(Rule11Bucket b);  // "kernel-internal", ...

// What validate_round decided for a round: the gate's decision once it is final (a gate still
// asking for pairs at the cap is a ROLLBACK), or AUDIT when the plausibility audit holds an accept
// for a person. Spelled "ACCEPT", "ACCEPT_WITH_NOTE", "ROLLBACK", "AUDIT" in the ledger, the
// round records and validate_round's result.
enum class RoundVerdict { Accept, AcceptWithNote, Rollback, Audit };
const char* toString(RoundVerdict v);
std::optional<RoundVerdict> roundVerdictFromString(std::string_view text);  // exact spelling
bool isAccepting(RoundVerdict v);   // Accept or AcceptWithNote: accepted without a person
bool allowsAccept(RoundVerdict v);  // also Audit: accepted once a person confirms it

// What a decided round showed about its direction (none for the baseline). A rolled-back round
// that proved a shape faster (the gate's IMPROVED on it) was rolled back for something else (a
// shape regressed or stayed INCONCLUSIVE, the aggregate missed the margin): its direction works
// there, so it is not an ineffective one. Decided here once for optimize.md, the
// list_ineffective_directions tool, the report and its ledger record.
enum class DirectionOutcome { Effective, Ineffective, RolledBackWithProvenShape };
std::optional<DirectionOutcome> directionOutcome(RoundStatus status, bool provedAShapeFaster);

// A shape's verdict against the current best is the gate's own word: measure::Verdict
// (measure/verdict.h), one enum and one name table from the statistics to the report.

// The transfer check's decision on an accepted round (loop contract, Rule 11); None: not made.
enum class TransferDecision { None, AcceptAsReal, AcceptWithAsterisk, RejectAsOverfit };
const char* toString(TransferDecision d);  // "-", "ACCEPT-as-real", "ACCEPT-with-asterisk", "REJECT-as-overfit"
std::optional<TransferDecision> transferDecisionFromString(const std::string& text);  // exact spelling

}  // namespace kopt::campaign
