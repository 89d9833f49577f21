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
  CHECK(p.aaSessions == 3);
  m.gate.aaSessions = 6;
  CHECK(gatePolicyFromManifest(m).aaSessions == 6);
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

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  std::getline(in, cell, '|');  // before the first bar
  while (std::getline(in, cell, '|')) {
    const auto b = cell.find_first_not_of(" `"), e = cell.find_last_not_of(" `");
    out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  return out;
}

}  // namespace

TEST_CASE("docs/statistics.md's defaults table is what the code ships") {
  std::ifstream doc(std::string(KOPT_SOURCE_DIR) + "/docs/statistics.md");
  REQUIRE(doc.good());
  const kopt::measure::GatePolicy p;
  const GatePolicy g;  // the manifest's
  const std::map<std::string, double> manifest = {
      {"gate.pairs", g.pairs},           {"gate.max_looks", g.maxLooks},
      {"gate.max_pairs", g.maxPairs},    {"gate.margin_pct", g.marginPct},
      {"gate.target_mde_pct", g.targetMdePct}, {"gate.regression_pct", g.regressionPct},
      {"gate.family_alpha", g.familyAlpha},    {"gate.near_noise_pct", g.nearNoisePct},
      {"gate.near_noise_remeasures", g.nearNoiseRemeasures}, {"gate.chain_drop_pct", g.chainDropPct},
      {"gate.aa_sessions", g.aaSessions}};
  const std::map<std::string, double> policy = {
      {"blocksPerLook", p.blocksPerLook}, {"maxLooks", p.maxLooks}, {"maxPairs", p.maxPairs},
      {"margin", p.margin}, {"targetMde", p.targetMde}, {"regressionTolerance", p.regressionTolerance},
      {"familyWiseAlpha", p.familyWiseAlpha}, {"nearNoiseGain", p.nearNoiseGain},
      {"nearNoiseRemeasures", p.nearNoiseRemeasures}, {"chainDrop", p.chainDrop},
      {"aggregateConfidence", p.aggregateConfidence}, {"deltaFloor", p.deltaFloor}, {"seFloor", p.seFloor},
      {"mdePower", p.mdePower}, {"maxBlocks", p.maxBlocks}, {"harnessBiasFloor", p.harnessBiasFloor},
      {"harnessBetweenRatio", p.harnessBetweenRatio}, {"tolerancePower", p.tolerancePower},
      {"maxAaSessions", p.maxAaSessions},
      {"minGain", p.minGain}, {"aaSessions", p.aaSessions},
      {"acceptanceDelta", p.acceptanceDelta}, {"minPairs", p.minPairs},
      {"bootstrapResamples", p.bootstrapResamples}};
  std::map<std::string, int> seenManifest, seenPolicy;
  std::string line;
  bool inTable = false;
  while (std::getline(doc, line)) {
    if (line.rfind("| manifest key | manifest default |", 0) == 0) {
      inTable = true;
      continue;
    }
    if (!inTable || line.rfind("|---", 0) == 0) continue;
    if (line.rfind("|", 0) != 0) break;  // the table ended
    const std::vector<std::string> c = cells(line);
    REQUIRE(c.size() >= 4);
    INFO(line);
    if (c[0] != "-") {
      REQUIRE(manifest.count(c[0]));
      CHECK(std::stod(c[1]) == doctest::Approx(manifest.at(c[0])));
      ++seenManifest[c[0]];
    }
    REQUIRE(policy.count(c[2]));
    CHECK(std::stod(c[3]) == doctest::Approx(policy.at(c[2])));
    ++seenPolicy[c[2]];
  }
  // Every default is documented, once.
  CHECK(seenManifest.size() == manifest.size());
  CHECK(seenPolicy.size() == policy.size());
  for (const auto& [k, n] : seenManifest) CHECK(n == 1);
  for (const auto& [k, n] : seenPolicy) CHECK(n == 1);
}
