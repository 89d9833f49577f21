#pragma once
// The plain structs the record writers render. The engine fills them from its own state and from
// src/measure's results; the writers only format. No I/O here.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "campaign/round_vocabulary.h"

namespace kopt::campaign::records {

// One vocabulary with the report and the tools (campaign/round_vocabulary.h).
using campaign::describe;
using campaign::isAccepted;
using campaign::isAllowed;
using campaign::RoundStatus;
using campaign::Rule11Bucket;
using campaign::rule11BucketFromString;
using campaign::toString;

enum class EffectDirection { Increase, Decrease };
const char* toString(EffectDirection d);  // "increase", "decrease"

struct ExpectedEffect {
  std::string metric;  // "Forward TFLOPS", ...
  EffectDirection direction = EffectDirection::Increase;
  double sizePct = 0;  // expected magnitude, percent
};

struct Hypothesis {
  std::string statement;  // "I expect X to improve because Y"
  std::string change;     // the one change
  ExpectedEffect expected;
  Rule11Bucket bucket = Rule11Bucket::K1;
  std::vector<std::string> files;  // repo-relative files it will touch
  bool configOnly = false;
  std::string bottleneck;  // optional (ANALYZE's diagnosis)
  std::string risk;        // optional
};

struct MetricCell {
  std::string name;                 // CSV column: "Forward TFLOPS"
  std::optional<double> value;      // nullopt = NaN / missing
  std::optional<double> stddev;
};

struct ShapeResult {
  std::string label;
  std::vector<std::pair<std::string, std::string>> dims;  // {"M","4096"},{"N","4096"},... as in the CSV
  std::string check;                // PASS / FAIL / ERROR
  std::vector<MetricCell> metrics;  // in schema order
  std::optional<double> primaryValue;       // the primary metric for this shape (e.g. combined step)
  std::optional<double> deltaVsBestPct;     // primary metric vs the current best
  std::string verdict;              // IMPROVED / SAME / REGRESSED / INCONCLUSIVE ("" for baseline)
  std::optional<double> ciLowPct, ciHighPct;  // confidence interval of the ratio, percent
};

struct Aggregate {
  std::string metric;                     // "Combined Step TFLOPS"
  std::optional<double> value;            // geomean over PASS shapes (0 when any Check fails)
  std::optional<double> bestValue;        // current best before this round
  std::optional<double> baselineValue;
  std::optional<double> deltaVsBestPct;
  std::optional<double> deltaVsBaselinePct;
  int passCount = 0;
  int shapeCount = 0;
};

struct RollbackAnalysis {
  std::string change, expected, actual, rootCause, lesson;
};

struct TransferCheck {
  std::string bucket;             // "K1" ...
  std::string cacheKey;           // "none" or the key
  std::string idAudit;
  std::string hitRateTrace;       // 4-step hit-rate trace
  std::string skewRobustness;
  std::string benchmarkGain;      // "+6.0%"
  std::string estimatedRealGain;  // "+5.5%"
  std::string decision;           // ACCEPT-as-real / ACCEPT-with-asterisk / REJECT-as-overfit
};

struct RoundRecord {
  int number = 0;                  // 1 = baseline
  std::string campaign;            // campaign name
  std::string description;         // one line (trend table, commit subject)
  std::string timestamp;           // "YYYY-MM-DD HH:MM"
  std::optional<Hypothesis> hypothesis;  // none for the baseline
  std::string validation;          // "quick" / "full"
  std::vector<ShapeResult> results;
  Aggregate aggregate;
  RoundStatus status = RoundStatus::Baseline;
  std::string decisionReason;      // why (the gate's reasons, in words)
  std::string gateVerdict;         // the measure layer's verdict name, when any
  std::vector<std::string> flags;  // plausibility / audit flags
  std::string attribution;         // agent prose
  std::string nextDirection;       // agent prose
  std::string keyFinding;          // one line for the trend table
  std::optional<RollbackAnalysis> rollback;  // rolled back only
  std::optional<TransferCheck> transfer;
  std::string commit;              // accepted: the new commit; else the commit restored to
  std::string lineageHead;         // the commit the round started from
};

}  // namespace kopt::campaign::records
