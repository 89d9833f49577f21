#include "campaign/gate_policy.h"

#include <doctest/doctest.h>

using namespace kopt::campaign;

TEST_CASE("the manifest's gate block becomes the statistics' policy") {
  Manifest m;  // defaults: 8 blocks per look, 3 looks, margin 1.5%, target MDE 2%
  kopt::measure::GatePolicy p = gatePolicyFromManifest(m);
  CHECK(p.blocksPerLook == 8);
  CHECK(p.maxLooks == 3);
  CHECK(p.maxPairs == 24);
  CHECK(p.defaultPairs == 8);
  CHECK(p.remeasurePairs == 8);
  CHECK(p.margin == doctest::Approx(0.015));
  CHECK(p.targetMde == doctest::Approx(0.02));
  CHECK(p.regressionTolerance == doctest::Approx(0.05));
  CHECK(p.familyWiseAlpha == doctest::Approx(0.05));
  CHECK(p.nearNoiseGain == doctest::Approx(0.02));
  CHECK(p.chainDrop == doctest::Approx(0.01));
  // The manifest's defaults are the statistics' defaults: one plan, not two.
  const kopt::measure::GatePolicy d;
  CHECK(p.blocksPerLook == d.blocksPerLook);
  CHECK(p.maxLooks == d.maxLooks);
  CHECK(p.maxPairs == d.maxPairs);
  CHECK(p.margin == doctest::Approx(d.margin));
  CHECK(p.targetMde == doctest::Approx(d.targetMde));
  CHECK(p.deltaFloor == doctest::Approx(d.deltaFloor));
}

TEST_CASE("a cap between whole looks rounds down, and the looks follow it") {
  Manifest m;
  m.gate.pairs = 4;
  m.gate.maxPairs = 6;  // one look of 4; a second would pass the cap
  kopt::measure::GatePolicy p = gatePolicyFromManifest(m);
  CHECK(p.maxLooks == 1);
  CHECK(p.maxPairs == 4);
  m.gate.maxPairs = 8;
  p = gatePolicyFromManifest(m);
  CHECK(p.maxLooks == 2);
  CHECK(p.maxPairs == 8);
  m.gate.maxLooks = 1;
  CHECK(gatePolicyFromManifest(m).maxLooks == 1);
}

TEST_CASE("a margin below the 1% floor is honoured, not clamped away") {
  Manifest m;
  m.gate.marginPct = 0.5;
  m.gate.targetMdePct = 1.0;
  kopt::measure::GatePolicy p = gatePolicyFromManifest(m);
  CHECK(p.margin == doctest::Approx(0.005));
  CHECK(p.deltaFloor <= p.margin);
  CHECK(kopt::measure::calibrateAa({}, p).shapes.empty());
  kopt::measure::Calibration c = kopt::measure::calibrateAa({{"s", {100, 100}, {100, 100}}}, p);
  CHECK(c.shapes[0].delta == doctest::Approx(0.005));
}
