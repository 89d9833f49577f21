#pragma once
// The ledger's events as types: one struct per event type, and the one codec between them and the
// JSON payloads ledger.jsonl holds. The payload keys are spelled in ledger_events.cpp and nowhere
// else, so a reader cannot misspell one or guess its type.
//
// The on-disk format is the one kopt has always written: encode() produces the same keys, value
// types and nesting, so ledgers written before these types existed still open, and their hashes and
// MACs (computed over the stored text, never over a re-encoding) still verify.
//
// Decoding is strict about types and lenient about absence: a key of the wrong type is an error
// that names the event, its seq and the field; a key that is absent decodes to its default (the
// readers before these types did the same with payload.value(key, default)), except a round's
// record, which every baseline_recorded, round_validated and round_decided has always carried.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/frozen_files.h"
#include "campaign/ledger.h"
#include "campaign/records/record_types.h"
#include "campaign/round_vocabulary.h"
#include "measure/statistics.h"

namespace kopt::campaign {

// Every payload carries "at", the local time of the append ("YYYY-MM-DD HH:MM"). OpenCampaign::record
// stamps it when the writer leaves it empty; nothing reads it, the records were once rendered from it.

struct TargetDefined {
  static constexpr const char* kType = "target_defined";
  std::string campaign;
  std::string repo;
  std::string campaignDir;
  std::string manifestSha256;
  bool redefined = false;
  std::string at;
};

struct TargetConfirmed {
  static constexpr const char* kType = "target_confirmed";
  std::string confirmedBy;
  std::string method;  // "argument" or "elicitation"
  std::string manifestSha256;
  std::string at;
};

struct EnvironmentPrepared {
  static constexpr const char* kType = "environment_prepared";
  std::optional<std::string> branch;  // null: the user's branch is used
  std::string baseCommit;
  std::string manifestSha256;
  std::optional<std::string> harness;  // the quick harness copied from the template; null: none
  std::string at;
};

struct TipsRead {
  static constexpr const char* kType = "tips_read";
  std::string path;
  bool exists = false;
  long long count = 0;
  std::string at;
};

struct BaselineRecorded {
  static constexpr const char* kType = "baseline_recorded";
  std::string commit;
  records::RoundRecord record;
  FrozenSet frozen;
  std::vector<measure::ShapeNoise> calibration;  // label, pairs, sd_log_ratio, q975, delta, process_sd
  std::vector<std::string> representativeShapes;
  std::vector<std::string> labels;
  std::string schemaHeader;
  std::string metric;
  std::string manifestSha256;
  long long pairs = 0;
  long long aaSame = 0;
  // The harness check (measurement_setup's harnessToJson), stored for the audit trail; only its
  // blocks_per_look is read back (harnessBlocksPerLook). null when no check ran.
  nlohmann::json harness;
  std::vector<std::string> aaBiasAlarm;
  long long aaShapes = 0;
  std::string measurement;  // the A/A measurement's tag
  std::string at;
};
// The harness check's blocks per look, 0 when the baseline recorded none.
int harnessBlocksPerLook(const BaselineRecorded& baseline);

struct RoundBegun {
  static constexpr const char* kType = "round_begun";
  std::optional<records::Hypothesis> hypothesis;
  std::string hypothesisSha256;  // of rounds/round-N/hypothesis.json as written
  std::string lineageHead;
  std::vector<std::string> files;
  bool configOnly = false;
  std::string at;
};

struct BuildFinished {
  static constexpr const char* kType = "build_finished";
  bool ok = false;
  std::string outcome;  // exec::toString(outcome), or "skipped"
  std::optional<long long> exitCode;  // absent for a skipped build
  std::optional<long long> wallMs;
  std::string fingerprint;  // of the kernel files built
  // candidateContentFingerprint after a good build: the tree, build outputs included. Older
  // records lack it.
  std::optional<std::string> content;
  bool automatic = false;  // built by a tool that needed it (written only when true)
  bool skipped = false;    // no build_command (written only when true)
  std::string at;
};

struct TestsFinished {
  static constexpr const char* kType = "tests_finished";
  bool ok = false;
  std::string outcome;
  long long exitCode = 0;
  long long wallMs = 0;
  std::string fingerprint;
  std::string at;
};

struct BenchFinished {
  static constexpr const char* kType = "bench_finished";
  bool full = false;  // "kind": "full" or "quick"
  long long pairs = 0;
  std::string fingerprint;
  std::string measurement;  // the tag
  std::string preview;      // the gate's decision, had this been validate_round
  std::vector<std::string> problems;
  std::string at;
};

struct GateReasonEntry {
  std::string code;
  std::string label;
  std::string message;
};

struct RoundValidated {
  static constexpr const char* kType = "round_validated";
  RoundVerdict decision = RoundVerdict::Rollback;
  std::vector<GateReasonEntry> reasons;
  std::string fingerprint;
  bool full = false;  // "kind"
  long long pairs = 0;
  std::vector<std::string> measurements;
  std::vector<std::string> flags;
  std::string hypothesisSha256;
  std::vector<std::string> changedFiles;
  records::RoundRecord record;
  std::string at;
};

struct RoundDecided {
  static constexpr const char* kType = "round_decided";
  RoundStatus status = RoundStatus::RolledBack;
  std::string commit;
  records::RoundRecord record;
  std::vector<std::string> restoredFiles;
  std::string at;
};

struct TerminationCondition {
  std::string id;  // T1..T4
  bool met = false;
  std::string detail;
};

struct StagnationDirection {
  std::string category;
  std::string text;
};

struct TerminationChecked {
  static constexpr const char* kType = "termination_checked";
  long long afterRound = 0;
  std::vector<TerminationCondition> conditions;
  bool stop = false;
  std::string decision;  // "continue" or "stop: T4 (...)"
  bool stagnationReview = false;
  std::vector<StagnationDirection> directions;
  std::string at;
};

struct FinalShape {
  std::string label;
  std::string check;
  std::optional<double> value;     // null when not measured
  std::optional<double> baseline;  // null when not measured
  std::optional<double> ratio;     // null when not measured
  std::string verdict;
};

struct FinalAcceptanceDone {
  static constexpr const char* kType = "final_acceptance_done";
  bool testsOk = false;
  std::string tests;  // how the test run ended
  long long pairs = 0;
  std::vector<FinalShape> shapes;
  std::optional<double> aggregate;        // null when not measured
  std::optional<double> ratioVsBaseline;  // null when not measured
  std::string bestCommit;
  std::string baselineCommit;
  std::vector<std::string> problems;
  std::string at;
};

struct ReportWritten {
  static constexpr const char* kType = "report_written";
  std::string metric;
  long long bestRound = 1;
  long long acceptedRounds = 0;
  long long rolledBackRounds = 0;
  long long totalRounds = 0;
  std::vector<std::string> effectiveDirections;
  std::vector<std::string> ineffectiveDirections;
  std::vector<std::string> rolledBackWithProvenShape;  // rolled back, yet a shape proven faster: not ineffective
  std::vector<std::string> nextSteps;
  std::string finalAcceptance;
  std::string reportPath;
  std::vector<std::string> files;
  std::optional<double> baselineValue;  // absent when unknown
  std::optional<double> bestValue;
  std::optional<double> improvementPct;
  std::optional<std::string> realTrainingAudit;
  std::string at;
};

// Declared with the other types; kopt appends tips to the tips store, not to the ledger, so no
// writer produces one yet.
struct TipAppended {
  static constexpr const char* kType = "tip_appended";
  std::string at;
};

struct PendingDiscarded {
  static constexpr const char* kType = "pending_discarded";
  std::string step;
  std::string startedAt;
  // The forged marker's "accept": true, false, or null when it said neither (it came from
  // state.json, which anyone can write). Any JSON value reads back: earlier kopt echoed it as it was.
  nlohmann::json accept;
  std::string reason;
  std::string at;
};

struct WorktreeBuilt {
  static constexpr const char* kType = "worktree_built";
  std::string tree;     // "best", "baseline"
  std::string commit;
  std::string build;    // sha256 of the build command
  std::string content;  // worktreeContentFingerprint after the build
  std::string at;
};

using LedgerPayload =
    std::variant<TargetDefined, TargetConfirmed, EnvironmentPrepared, TipsRead, BaselineRecorded, RoundBegun,
                 BuildFinished, TestsFinished, BenchFinished, RoundValidated, RoundDecided, TerminationChecked,
                 FinalAcceptanceDone, ReportWritten, TipAppended, PendingDiscarded, WorktreeBuilt>;

// One decoded ledger line: the envelope and the typed payload.
struct TypedEvent {
  std::uint64_t seq = 0;
  std::string ts;  // ISO-8601 UTC, the ledger's own time
  std::optional<int> round;
  LedgerPayload payload;

  const char* type() const;
  template <class E>
  bool is() const {
    return std::holds_alternative<E>(payload);
  }
  template <class E>
  const E* as() const {
    return std::get_if<E>(&payload);
  }
};

// Why a ledger line does not decode: "ledger seq 12 (round_decided): field 'decision': expected a
// string". The chain verified, so this is a kopt version the reader does not know, not tampering.
struct CodecError {
  std::string message;
};

const char* eventType(const LedgerPayload& payload);

nlohmann::json encode(const TargetDefined& e);
nlohmann::json encode(const TargetConfirmed& e);
nlohmann::json encode(const EnvironmentPrepared& e);
nlohmann::json encode(const TipsRead& e);
nlohmann::json encode(const BaselineRecorded& e);
nlohmann::json encode(const RoundBegun& e);
nlohmann::json encode(const BuildFinished& e);
nlohmann::json encode(const TestsFinished& e);
nlohmann::json encode(const BenchFinished& e);
nlohmann::json encode(const RoundValidated& e);
nlohmann::json encode(const RoundDecided& e);
nlohmann::json encode(const TerminationChecked& e);
nlohmann::json encode(const FinalAcceptanceDone& e);
nlohmann::json encode(const ReportWritten& e);
nlohmann::json encode(const TipAppended& e);
nlohmann::json encode(const PendingDiscarded& e);
nlohmann::json encode(const WorktreeBuilt& e);
nlohmann::json encode(const LedgerPayload& payload);

std::variant<TypedEvent, CodecError> decode(const LedgerEvent& event);
// Every event of a verified ledger, or the first one that does not decode.
std::variant<std::vector<TypedEvent>, CodecError> decodeAll(const std::vector<LedgerEvent>& events);

}  // namespace kopt::campaign
