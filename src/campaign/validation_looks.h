#pragma once
// The measurement of validate_round: fresh interleaved A/B pairs of the candidate against the
// current best, judged by the gate at successive looks (sequential stopping: each look adds the
// same number of fresh pairs until the gate decides or the pair cap is reached), and a small quick
// win escalated once to a full validation on all target shapes.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine_session.h"
#include "campaign/measurement.h"
#include "campaign/validation_verdict.h"
#include "exec/executor.h"
#include "measure/statistics.h"

namespace kopt::campaign {

// The tag of a validation measurement (file-name prefix of its runs): "r3-validate-quick-2".
std::string validationTag(int round, bool full, int ordinal);

// How many pairs the look after a REMEASURE adds, 0 when none may be added. Worker mode: one
// look's blocks every time (the per-look levels assume equally spaced information). Process
// pairs: what the gate asks for (else the policy's re-measure batch), at least one, never past
// the policy's pair cap.
int pairsForNextLook(bool workers, int perLook, const measure::GatePolicy& policy, int pairsSoFar, int gatePairsToAdd);

// Whether an accepting quick validation is confirmed on all target shapes: its geomean gain is
// below `escalateBelowGain` and the full shape set is not the quick one.
bool escalatesToFull(const ValidationVerdict& verdict, bool full, double gain, double escalateBelowGain,
                     bool fullShapesDiffer);

// The check line of the measurement: "all Check PASS, schema byte-identical and shape set
// identical: yes" (else "no").
std::string measurementCheckLine(const AssembledRuns& assembled);

namespace detail {

// What validate_round decides and measures, as the steps fill it in.
struct ValidationRun {
  ValidationVerdict verdict;
  bool full = false;               // full validation (all target shapes), else quick
  std::vector<std::string> tags;   // every measurement's tag, escalation included
  std::vector<PairRun> pairs;      // the last measurement's pairs
  AssembledRuns assembled;
  std::optional<measure::GateResult> gate;  // the last look's
};

// What every look of a round's validation needs.
struct ValidationContext {
  OpenCampaign& session;
  exec::Executor& executor;
  const CallContext& ctx;
  const RoundPaths& paths;
  int round = 0;
  std::string fingerprint;  // the candidate's kernel files
  measure::GatePolicy policy;
  double progressTotal = 0;
};

// Builds the best's worktree, measures and gates (escalating once), then adds the measurement's
// check line to `checks` and publishes the candidate's benchmark CSV. A failure stops the call:
// the measurements of a cancelled or lost run are discarded, and nothing of it is recorded.
std::optional<Stop> measureAndGate(const ValidationContext& c, const std::function<std::uint64_t()>& seeds,
                                          ValidationRun& run, std::vector<std::string>& checks);

}  // namespace detail
}  // namespace kopt::campaign
