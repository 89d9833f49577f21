#pragma once
// Physics before statistics: a candidate that claims more than the hardware can do, or a jump no
// honest single change makes, is flagged for audit rather than accepted (KernelBench's 10x flag,
// speed-of-light guideline). The peaks come from the caller (the device layer owns peak tables).
#include <optional>
#include <string>
#include <vector>

#include "measure/scoring.h"

namespace kopt::measure {

struct PlausibilityPolicy {
  double auditFractionOfPeak = 0.90;  // above this fraction of peak: audit
  double maxJumpRatio = 10.0;         // candidate/best above this in one round: audit
};

enum class AuditFlag {
  NearSpeedOfLight,  // above auditFractionOfPeak of peak
  AbovePeak,         // above 100% of peak: physically impossible, a timing or correctness hole
  JumpVsBest,        // candidate / best > maxJumpRatio
};
const char* toString(AuditFlag flag);  // "near_speed_of_light" | "above_peak" | "jump_vs_best"

struct ShapePlausibility {
  std::string label;
  double value = 0.0;
  std::optional<double> percentOfPeak;  // when a peak was given
  std::optional<double> jumpVsBest;     // candidate / best, when the best has the shape
  std::vector<AuditFlag> flags;
  std::string message;  // "" when no flag
};

struct PlausibilityReport {
  std::vector<ShapePlausibility> shapes;  // PASS shapes of the candidate
  bool needsAudit() const;
};

// `peak` is in the metric's unit (TFLOPS for TFLOPS metrics, GB/s for GB/s metrics); nullopt
// skips the speed-of-light part. `best` nullopt skips the jump part.
PlausibilityReport checkPlausibility(const ScoreVector& candidate, const ScoreVector* best, std::optional<double> peak,
                                     const PlausibilityPolicy& policy = {});

}  // namespace kopt::measure
