#pragma once
// The manifest's `gate:` block as the statistics' policy (docs/statistics.md): blocks per look,
// looks, the margin, the target MDE and the skill's readable thresholds.
#include "campaign/manifest.h"
#include "measure/statistics.h"

namespace kopt::campaign {

// gate.pairs -> blocksPerLook (and the older defaultPairs/remeasurePairs); looks = min(max_looks,
// max_pairs / pairs), so the Pocock levels are computed for the looks that can really happen and
// maxPairs = blocksPerLook * looks (a max_pairs between whole looks rounds down).
measure::GatePolicy gatePolicyFromManifest(const Manifest& m);

}  // namespace kopt::campaign
