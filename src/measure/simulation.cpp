#include "measure/simulation.h"

#include <cmath>

namespace kopt::measure {

double Simulator::normal() {
  if (haveSpare_) {
    haveSpare_ = false;
    return spare_;
  }
  // Marsaglia polar method on 53-bit uniforms.
  while (true) {
    const double u = 2.0 * (static_cast<double>(rng_() >> 11) * 0x1.0p-53) - 1.0;
    const double v = 2.0 * (static_cast<double>(rng_() >> 11) * 0x1.0p-53) - 1.0;
    const double s = u * u + v * v;
    if (s <= 0.0 || s >= 1.0) continue;
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    haveSpare_ = true;
    return u * f;
  }
}

double Simulator::noise(double sd, double tailDf) {
  if (tailDf <= 0.0) return sd * normal();
  // t_df = Z / sqrt(chi2_df / df), chi2 as a sum of squares (integer df), scaled to unit sd.
  const int df = static_cast<int>(std::lround(tailDf));
  double chi2 = 0.0;
  for (int i = 0; i < df; ++i) {
    const double z = normal();
    chi2 += z * z;
  }
  const double t = normal() / std::sqrt(chi2 / df);
  const double unitSd = df > 2 ? std::sqrt(static_cast<double>(df) / (df - 2)) : 1.0;
  return sd * t / unitSd;
}

std::vector<PairedRuns> Simulator::round(const SimulationSpec& spec) {
  std::vector<PairedRuns> out(spec.shapes);
  std::vector<double> drift(spec.pairs);
  for (auto& d : drift) d = spec.pairDriftSd * normal();
  for (std::size_t s = 0; s < spec.shapes; ++s) {
    PairedRuns& r = out[s];
    r.label = "s" + std::to_string(s);
    const double sd = spec.noise.empty() ? 0.0 : spec.noise[std::min(s, spec.noise.size() - 1)];
    const double ratio = s < spec.trueRatio.size() ? spec.trueRatio[s] : 1.0;
    const double base = 100.0 + 10.0 * static_cast<double>(s);
    r.best.resize(spec.pairs);
    r.candidate.resize(spec.pairs);
    for (std::size_t i = 0; i < spec.pairs; ++i) {
      r.best[i] = base * std::exp(drift[i] + noise(sd, spec.tailDf));
      r.candidate[i] = base * ratio * std::exp(drift[i] + noise(sd, spec.tailDf));
    }
  }
  return out;
}

}  // namespace kopt::measure
