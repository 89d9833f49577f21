#pragma once
// The loop's own rules as numbers (loop-contract sections 5 and 6), apart from the accept/revert
// gate's (gate_policy.h): when a run of rollbacks stops the loop for a stagnation review and what
// the review must name, and which quick wins are re-validated on every target shape. One home, so
// the engine, its messages and docs/campaign-engine.md cannot disagree.
#include <string>

namespace kopt::campaign {

struct LoopPolicy {
  int stagnationRollbacks = 2;     // rollbacks in a row after which the next round needs a review
  int stagnationDirections = 3;    // new directions the review names ...
  int stagnationCategories = 2;    // ... in at least this many categories
  double escalateBelowGain = 0.05;  // a quick ACCEPT below this geomean gain is validated in full

  bool needsStagnationReview(int consecutiveRollbacks) const { return consecutiveRollbacks >= stagnationRollbacks; }
  // "three new directions in at least two categories", for messages.
  std::string reviewRule() const;
};

// The policy the engine runs with.
const LoopPolicy& loopPolicy();

}  // namespace kopt::campaign
