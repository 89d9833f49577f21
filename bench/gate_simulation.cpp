// The simulated error rates and power of the gate quoted in docs/statistics.md. Deterministic
// (seeded); prints markdown tables. Not a test: the doctest cases assert the thresholds.
//   kopt_gate_simulation [rounds=1000]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "measure/simulation.h"
#include "measure/statistics.h"

using namespace kopt::measure;

namespace {

struct Row {
  double falseRegressedRounds = 0;  // A/A: rounds with any REGRESSED (family-wise error)
  double sameShapes = 0;            // A/A: shape verdicts SAME
  double allSameRounds = 0;         // A/A: rounds where all 20 shapes are SAME
  double power3 = 0;                // planted 3% slowdown on one shape: REGRESSED there
  double power2 = 0;                // planted 2% slowdown
  double medianDelta = 0;           // calibrated delta (relative)
  double medianMde = 0;             // per-shape MDE (relative)
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

Row run(std::size_t pairs, double calNoise, double roundNoise, double tailDf, int rounds, std::uint64_t seed) {
  GatePolicy policy;
  Simulator sim(seed);
  SimulationSpec cal;
  cal.shapes = 20;
  cal.pairs = static_cast<std::size_t>(policy.calibrationPairs);
  cal.noise = {calNoise};
  cal.tailDf = tailDf;
  SimulationSpec round = cal;
  round.pairs = pairs;
  round.noise = {roundNoise};
  int anyReg = 0, allSame = 0, hit3 = 0, hit2 = 0;
  long same = 0, total = 0;
  std::vector<double> deltas, mdes;
  for (int r = 0; r < rounds; ++r) {
    Calibration c = calibrateAa(sim.round(cal), policy);
    std::vector<ShapeVerdict> v = compareShapes(sim.round(round), c, policy);
    bool reg = false, all = true;
    for (const auto& x : v) {
      ++total;
      same += x.verdict == Verdict::Same;
      all = all && x.verdict == Verdict::Same;
      reg = reg || x.verdict == Verdict::Regressed;
      if (r % 10 == 0) {
        deltas.push_back(x.delta);
        mdes.push_back(x.mde);
      }
    }
    anyReg += reg;
    allSame += all;
    SimulationSpec planted = round;
    planted.trueRatio = {0.97};
    hit3 += compareShapes(sim.round(planted), c, policy)[0].verdict == Verdict::Regressed;
    planted.trueRatio = {0.98};
    hit2 += compareShapes(sim.round(planted), c, policy)[0].verdict == Verdict::Regressed;
  }
  Row row;
  row.falseRegressedRounds = anyReg / static_cast<double>(rounds);
  row.sameShapes = same / static_cast<double>(total);
  row.allSameRounds = allSame / static_cast<double>(rounds);
  row.power3 = hit3 / static_cast<double>(rounds);
  row.power2 = hit2 / static_cast<double>(rounds);
  row.medianDelta = median(deltas);
  row.medianMde = median(mdes);
  return row;
}

void header() {
  std::printf("| pairs | noise (cal -> round) | tails | false REGRESSED rounds | SAME shapes | all-SAME rounds | "
              "3%% slowdown REGRESSED | 2%% slowdown REGRESSED | median delta | median MDE |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
}

void print(std::size_t pairs, double cal, double round, double tail, const Row& r) {
  std::printf("| %zu | %.2f%% -> %.2f%% | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.2f%% | %.2f%% |\n", pairs,
              100 * cal, 100 * round, tail > 0 ? "t3" : "normal", 100 * r.falseRegressedRounds, 100 * r.sameShapes,
              100 * r.allSameRounds, 100 * r.power3, 100 * r.power2, 100 * r.medianDelta, 100 * r.medianMde);
  std::fflush(stdout);
}

// Gate decisions over whole rounds (with REMEASURE followed up to the cap, as the engine does).
void gateRounds(int rounds) {
  GatePolicy policy;
  policy.bootstrapResamples = 2000;
  struct Case {
    const char* name;
    double gain;        // true ratio on every shape but the first
    double first;       // true ratio of shape 0
    bool failSlowest;   // candidate turns the slowest shape into FAIL
    double noise;       // per-run noise of every shape
  };
  const Case cases[] = {{"A/A (no change)", 1.0, 1.0, false, 0.005},
                        {"+3% on every shape", 1.03, 1.03, false, 0.005},
                        {"+1.5% on every shape", 1.015, 1.015, false, 0.005},
                        {"+2% on 19 shapes, -3% on one", 1.02, 0.97, false, 0.005},
                        {"+10% on 19 shapes, the slowest FAILs", 1.10, 1.10, true, 0.005},
                        {"A/A (no change)", 1.0, 1.0, false, 0.01},
                        {"+3% on every shape", 1.03, 1.03, false, 0.01},
                        {"+2% on 19 shapes, -3% on one", 1.02, 0.97, false, 0.01}};
  std::printf("\n| case (20 shapes) | noise | ACCEPT | ACCEPT_WITH_NOTE | ROLLBACK | mean pairs used |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    Simulator sim(77);
    int accept = 0, note = 0, rollback = 0;
    double pairsUsed = 0;
    for (int r = 0; r < rounds; ++r) {
      SimulationSpec cal;
      cal.shapes = 20;
      cal.pairs = static_cast<std::size_t>(policy.calibrationPairs);
      cal.noise = {c.noise};
      GateInput in;
      in.calibration = calibrateAa(sim.round(cal), policy);
      SimulationSpec round = cal;
      round.pairs = static_cast<std::size_t>(policy.defaultPairs);
      round.trueRatio.assign(20, c.gain);
      round.trueRatio[0] = c.first;
      for (int batch = 0;; ++batch) {
        in.runs = sim.round(round);
        in.bestPassLabels.clear();
        in.candidateChecks.clear();
        for (const auto& pr : in.runs) {
          in.bestPassLabels.push_back(pr.label);
          in.candidateChecks.emplace_back(pr.label, Check::Pass);
        }
        if (c.failSlowest) in.candidateChecks[0].second = Check::Fail;
        in.remeasureBatches = batch;
        GateResult g = evaluateGate(in, policy);
        if (g.decision == Decision::Remeasure) {
          round.pairs += static_cast<std::size_t>(g.pairsToAdd);  // a fresh, longer interleaved series
          continue;
        }
        pairsUsed += static_cast<double>(round.pairs);
        accept += g.decision == Decision::Accept;
        note += g.decision == Decision::AcceptWithNote;
        rollback += g.decision == Decision::Rollback;
        break;
      }
    }
    std::printf("| %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f |\n", c.name, 100 * c.noise, 100.0 * accept / rounds,
                100.0 * note / rounds,
                100.0 * rollback / rounds, pairsUsed / rounds);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::printf("%d simulated rounds per row, 20 shapes, A/A calibration with 12 pairs, family-wise alpha 0.05\n\n", rounds);
  header();
  for (std::size_t n : {5, 6, 8, 10, 12}) print(n, 0.005, 0.005, 0, run(n, 0.005, 0.005, 0, rounds, 100 + n));
  for (double noise : {0.0025, 0.01, 0.02}) print(8, noise, noise, 0, run(8, noise, noise, 0, rounds, 200));
  print(8, 0.005, 0.005, 3, run(8, 0.005, 0.005, 3, rounds, 300));
  print(8, 0.01, 0.01, 3, run(8, 0.01, 0.01, 3, rounds, 301));
  print(8, 0.005, 0.02, 0, run(8, 0.005, 0.02, 0, rounds, 400));
  gateRounds(rounds / 5);
  return 0;
}
