#include "campaign/gate_policy.h"

#include <algorithm>

namespace kopt::campaign {

measure::GatePolicy gatePolicyFromManifest(const Manifest& m) {
  const GatePolicy& g = m.gate;
  measure::GatePolicy p;
  p.familyWiseAlpha = g.familyAlpha;
  p.regressionTolerance = g.regressionPct / 100.0;
  p.nearNoiseGain = g.nearNoisePct / 100.0;
  p.nearNoiseRemeasures = g.nearNoiseRemeasures;
  p.chainDrop = g.chainDropPct / 100.0;
  p.margin = g.marginPct / 100.0;
  // A margin below the 1% floor is the user's informed choice (a quiet harness): honour it
  // rather than clamp it away; the SE floor still guards against a zero spread.
  p.deltaFloor = std::min(p.deltaFloor, p.margin);
  p.targetMde = g.targetMdePct / 100.0;
  p.aaSessions = g.aaSessions;
  p.maxAaSessions = std::max(p.maxAaSessions, p.aaSessions);
  const int blocks = std::max(1, g.pairs);
  p.blocksPerLook = blocks;
  // Every look adds a whole look of blocks; a cap between two looks ends at the lower one, and the
  // Pocock levels are for the looks that can happen (fewer planned looks, narrower intervals).
  p.maxLooks = std::max(1, std::min(g.maxLooks, std::max(g.maxPairs, blocks) / blocks));
  p.maxPairs = blocks * p.maxLooks;
  p.defaultPairs = blocks;
  p.remeasurePairs = blocks;
  p.calibrationPairs = blocks;
  p.maxBlocks = std::max(p.maxBlocks, blocks);
  p.minPairs = std::min(p.minPairs, blocks);
  return p;
}

}  // namespace kopt::campaign
