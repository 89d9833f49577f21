#pragma once
// Synthetic interleaved rounds with known truth, for the gate's tests, for docs/statistics.md and
// for the benchmark. Deterministic across platforms: own normal generator over mt19937_64 (the
// standard's distributions are implementation-defined).
#include <cstdint>
#include <random>
#include <vector>

#include "measure/statistics.h"

namespace kopt::measure {

struct SimulationSpec {
  std::size_t shapes = 20;
  std::size_t pairs = 6;
  // Per-run noise of each arm, as a log-scale sd (0.005 = 0.5%); one value for all shapes or one
  // per shape.
  std::vector<double> noise = {0.005};
  // True candidate/best throughput ratio per shape (default 1: an A/A round). Missing -> 1.
  std::vector<double> trueRatio;
  // Drift shared by both runs of a pair (clocks, heat): interleaving cancels it in the ratio.
  double pairDriftSd = 0.02;
  // 0: normal noise; otherwise Student t noise with this many degrees of freedom (heavy tails),
  // scaled to the same sd.
  double tailDf = 0.0;
};

class Simulator {
 public:
  explicit Simulator(std::uint64_t seed) : rng_(seed) {}
  // Paired per-run throughputs (best, candidate) of every shape; labels "s0", "s1", ...
  std::vector<PairedRuns> round(const SimulationSpec& spec);
  double normal();

 private:
  double noise(double sd, double tailDf);
  std::mt19937_64 rng_;
  bool haveSpare_ = false;
  double spare_ = 0.0;
};

}  // namespace kopt::measure
