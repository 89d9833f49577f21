#include "measure/statistics.h"

#include <cmath>

#include <doctest/doctest.h>

#include "measure/simulation.h"

using namespace kopt::measure;

// Simulated rounds use the engine's defaults: 8 interleaved pairs per round (GatePolicy::
// defaultPairs) and a 12-pair A/A calibration (GatePolicy::calibrationPairs), 20 shapes.

namespace {

PairedRuns pairs(const std::string& label, std::vector<double> best, std::vector<double> candidate) {
  return PairedRuns{label, std::move(best), std::move(candidate)};
}

// A round where every pair has exactly the given candidate/best ratio times a tiny jitter.
PairedRuns steady(const std::string& label, double ratio, std::size_t n, double jitter = 0.001, std::uint64_t seed = 7) {
  Simulator sim(seed);
  PairedRuns r;
  r.label = label;
  for (std::size_t i = 0; i < n; ++i) {
    r.best.push_back(100.0 * std::exp(jitter * sim.normal()));
    r.candidate.push_back(100.0 * ratio * std::exp(jitter * sim.normal()));
  }
  return r;
}

struct Rates {
  double anyRegressedRounds = 0;  // rounds with at least one REGRESSED shape (family-wise)
  double sameShapes = 0;          // fraction of shape verdicts that are SAME
  double regressedAtPlanted = 0;  // fraction of rounds where shape 0 is REGRESSED
  double regressedElsewhere = 0;  // fraction of rounds where another shape is REGRESSED
};

Rates simulate(SimulationSpec roundSpec, SimulationSpec calibrationSpec, int rounds, std::uint64_t seed,
               const GatePolicy& policy = {}) {
  Simulator sim(seed);
  Rates r;
  int anyRegressed = 0, planted = 0, elsewhere = 0;
  long same = 0, total = 0;
  for (int i = 0; i < rounds; ++i) {
    Calibration cal = calibrateAa(sim.round(calibrationSpec), policy);
    std::vector<ShapeVerdict> v = compareShapes(sim.round(roundSpec), cal, policy);
    bool any = false, other = false;
    for (std::size_t s = 0; s < v.size(); ++s) {
      ++total;
      if (v[s].verdict == Verdict::Same) ++same;
      if (v[s].verdict == Verdict::Regressed) {
        any = true;
        if (s > 0) other = true;
      }
    }
    anyRegressed += any;
    elsewhere += other;
    planted += v[0].verdict == Verdict::Regressed;
  }
  r.anyRegressedRounds = anyRegressed / static_cast<double>(rounds);
  r.sameShapes = same / static_cast<double>(total);
  r.regressedAtPlanted = planted / static_cast<double>(rounds);
  r.regressedElsewhere = elsewhere / static_cast<double>(rounds);
  return r;
}

SimulationSpec spec(std::vector<double> noise, std::size_t n) {
  SimulationSpec s;
  s.shapes = 20;
  s.pairs = n;
  s.noise = std::move(noise);
  return s;
}

// 20 shapes with noise from 0.3% to 2% per run: quiet large GEMMs and noisy small ones.
std::vector<double> mixedNoise() {
  std::vector<double> n;
  for (int s = 0; s < 20; ++s) n.push_back(0.003 + 0.017 * s / 19.0);
  return n;
}

}  // namespace

TEST_CASE("Student t and normal quantiles match the tables") {
  CHECK(studentTQuantile(0.975, 4) == doctest::Approx(2.776445).epsilon(1e-6));
  CHECK(studentTQuantile(0.975, 7) == doctest::Approx(2.364624).epsilon(1e-6));
  CHECK(studentTQuantile(0.995, 1) == doctest::Approx(63.65674).epsilon(1e-6));
  CHECK(studentTQuantile(0.95, 30) == doctest::Approx(1.697261).epsilon(1e-6));
  CHECK(studentTQuantile(0.025, 4) == doctest::Approx(-2.776445).epsilon(1e-6));
  CHECK(studentTQuantile(0.5, 3) == 0.0);
  CHECK(std::isnan(studentTQuantile(1.0, 3)));
  CHECK(studentTUpperTail(2.364624, 7) == doctest::Approx(0.025).epsilon(1e-5));
  CHECK(studentTUpperTail(-2.364624, 7) == doctest::Approx(0.975).epsilon(1e-5));
  CHECK(studentTUpperTail(INFINITY, 7) == 0.0);
  CHECK(normalQuantile(0.975) == doctest::Approx(1.959964).epsilon(1e-6));
  CHECK(normalQuantile(0.9875) == doctest::Approx(2.241403).epsilon(1e-6));
}

TEST_CASE("Holm's step-down adjustment") {
  std::vector<double> adjusted = holmAdjust({0.01, 0.04, 0.03, 0.005});
  CHECK(adjusted[3] == doctest::Approx(0.02));  // 4 * 0.005
  CHECK(adjusted[0] == doctest::Approx(0.03));  // 3 * 0.01
  CHECK(adjusted[2] == doctest::Approx(0.06));  // 2 * 0.03
  CHECK(adjusted[1] == doctest::Approx(0.06));  // max(1 * 0.04, 0.06): monotone
  CHECK(holmAdjust({0.9, 0.8})[0] == 1.0);      // capped at 1
  CHECK(holmAdjust({}).empty());
}

TEST_CASE("MDE: at least delta, shrinking with more pairs") {
  const double sd = 0.007, alpha = 0.05 / 20, delta = 0.016;
  double m8 = minimumDetectableEffect(sd, 8, alpha, delta);
  double m16 = minimumDetectableEffect(sd, 16, alpha, delta);
  CHECK(m8 >= delta);
  CHECK(m16 < m8);
  const double se = sd / std::sqrt(8.0);
  CHECK(m8 == doctest::Approx(std::max(delta, studentTQuantile(1 - alpha / 2, 7) * se) + studentTQuantile(0.8, 7) * se));
  CHECK(std::isinf(minimumDetectableEffect(sd, 1, alpha, delta)));
}

TEST_CASE("A/A calibration: delta from the noise, floored and capped") {
  GatePolicy p;
  // Identical runs: no noise, delta is the floor.
  Calibration quiet = calibrateAa({steady("q", 1.0, 12, 0.0)}, p);
  REQUIRE(quiet.shapes.size() == 1);
  CHECK(quiet.shapes[0].pairs == 12);
  CHECK(quiet.shapes[0].delta == doctest::Approx(0.01));
  // Log ratios +-1.5% alternating: sd ~1.64%, parametric 97.5% quantile of |d| = 2.24 * sd.
  PairedRuns alt = pairs("alt", {100, 100, 100, 100, 100, 100}, {});
  for (int i = 0; i < 6; ++i) alt.candidate.push_back(100 * std::exp(i % 2 ? 0.015 : -0.015));
  Calibration c = calibrateAa({alt}, p);
  const double sd = 0.015 * std::sqrt(6.0 / 5.0);
  CHECK(c.shapes[0].sdLogRatio == doctest::Approx(sd));
  CHECK(c.shapes[0].q975 == doctest::Approx(0.015));
  CHECK(c.shapes[0].delta == doctest::Approx(std::expm1(2.241403 * sd)).epsilon(1e-5));
  // A very noisy shape is capped at the regression tolerance (5%).
  Calibration noisy = calibrateAa({steady("n", 1.0, 12, 0.08)}, p);
  CHECK(noisy.shapes[0].delta == doctest::Approx(0.05));
  CHECK(noisy.find("n") != nullptr);
  CHECK(noisy.find("zz") == nullptr);
}

TEST_CASE("per-shape verdicts on clear-cut data") {
  GatePolicy p;
  Calibration none;
  std::vector<ShapeVerdict> v = compareShapes(
      {steady("same", 1.0, 8), steady("slow", 0.90, 8), steady("fast", 1.10, 8), steady("few", 0.5, 2),
       pairs("wild", {100, 100, 100, 100, 100, 100, 100, 100}, {90, 112, 95, 108, 99, 103, 91, 110})},
      none, p);
  REQUIRE(v.size() == 5);
  CHECK((v[0].verdict == Verdict::Same));
  CHECK(v[0].delta == doctest::Approx(0.01));  // uncalibrated shapes use the floor
  CHECK((v[1].verdict == Verdict::Regressed));
  CHECK(v[1].ratio == doctest::Approx(0.90).epsilon(0.01));
  CHECK(v[1].ciHigh < 1.0);
  CHECK(v[1].pRegressed < 0.05);
  CHECK(v[1].pImproved == 1.0);
  CHECK(v[1].note.find("slower by") == 0);
  CHECK((v[2].verdict == Verdict::Improved));
  CHECK(v[2].pImproved < 0.05);
  CHECK((v[3].verdict == Verdict::Inconclusive));
  CHECK(v[3].note.find("at least 3 needed") != std::string::npos);
  CHECK((v[4].verdict == Verdict::Inconclusive));
  CHECK(v[4].mde > 0.05);
  // Simultaneous intervals are wider than the equivalence intervals.
  CHECK(v[0].ciLow < v[0].tostLow);
  CHECK(v[0].ciHigh > v[0].tostHigh);
}

TEST_CASE("a significant slowdown within delta is SAME with a note") {
  GatePolicy p;
  Calibration cal = calibrateAa({steady("s", 1.0, 12, 0.004, 3)}, p);  // delta ~1.3%
  std::vector<ShapeVerdict> v = compareShapes({steady("s", 0.995, 8, 0.0005, 5)}, cal, p);
  CHECK((v[0].verdict == Verdict::Same));
  CHECK(v[0].slowedWithinDelta);
  CHECK(v[0].note.find("within delta") != std::string::npos);
}

TEST_CASE("pairs with a missing or broken run are skipped, not crashed on") {
  GatePolicy p;
  std::vector<ShapeVerdict> v =
      compareShapes({pairs("s", {100, NAN, 100, 100, 0, 100}, {100, 100, 100, INFINITY, 100, 100, 100})}, Calibration{}, p);
  CHECK(v[0].pairs == 3);
  CHECK((v[0].verdict == Verdict::Same));
}

TEST_CASE("simulation: A/A rounds are SAME, and false REGRESSED stays under the family-wise level") {
  // 1,000 simulated A/A rounds of 20 shapes, 8 pairs, noise 0.3%..2% per run.
  Rates r = simulate(spec(mixedNoise(), 8), spec(mixedNoise(), 12), 1000, 11);
  CHECK(r.anyRegressedRounds <= 0.05);
  CHECK(r.sameShapes >= 0.95);
}

TEST_CASE("simulation: heavy-tailed noise (t3) keeps the family-wise level") {
  SimulationSpec round = spec(mixedNoise(), 8), cal = spec(mixedNoise(), 12);
  round.tailDf = cal.tailDf = 3;
  Rates r = simulate(round, cal, 1000, 12);
  CHECK(r.anyRegressedRounds <= 0.05);
  CHECK(r.sameShapes >= 0.90);
}

TEST_CASE("simulation: noise that doubles after calibration still keeps the family-wise level (Holm binds)") {
  // The A/A said 0.5%, the round runs at 2% (a co-tenant arrived): delta is too small for this
  // round, so only the multiplicity-controlled test stands between noise and a false REGRESSED.
  Rates r = simulate(spec({0.02}, 8), spec({0.005}, 12), 1000, 13);
  CHECK(r.anyRegressedRounds <= 0.05);
  // The rule "estimate below -delta" alone would raise false alarms in most of these rounds: the
  // multiplicity-controlled test is doing real work here.
  Simulator sim(13);
  GatePolicy p;
  int naive = 0;
  const int rounds = 300;
  for (int i = 0; i < rounds; ++i) {
    Calibration cal = calibrateAa(sim.round(spec({0.005}, 12)), p);
    bool any = false;
    for (const auto& v : compareShapes(sim.round(spec({0.02}, 8)), cal, p)) any = any || v.ratio < 1.0 - v.delta;
    naive += any;
  }
  CHECK(naive / static_cast<double>(rounds) > 0.25);
}

TEST_CASE("simulation: a planted 3% slowdown on one shape with 0.5% noise is REGRESSED") {
  SimulationSpec round = spec({0.005}, 8);
  round.trueRatio = {0.97};
  Rates r = simulate(round, spec({0.005}, 12), 1000, 14);
  CHECK(r.regressedAtPlanted >= 0.95);
  CHECK(r.regressedElsewhere <= 0.05);
}

TEST_CASE("aggregate: geomean of per-shape ratios, CI covers the truth") {
  GatePolicy p;
  p.bootstrapResamples = 2000;
  Simulator sim(21);
  SimulationSpec s = spec(mixedNoise(), 8);
  s.trueRatio.assign(20, 1.02);
  int covered = 0;
  const int rounds = 400;
  for (int i = 0; i < rounds; ++i) {
    AggregateEstimate a = aggregateRatio(sim.round(s), p);
    CHECK(a.pairs == 8);
    covered += a.ciLow <= 1.02 && 1.02 <= a.ciHigh;
  }
  CHECK(covered / static_cast<double>(rounds) >= 0.93);

  // Point estimate is the geomean of per-shape ratios.
  AggregateEstimate exact = aggregateRatio({steady("a", 1.10, 8, 0.0), steady("b", 0.90, 8, 0.0)}, p);
  CHECK(exact.ratio == doctest::Approx(std::sqrt(1.10 * 0.90)));
  // Too few pairs: an interval that decides nothing.
  AggregateEstimate one = aggregateRatio({pairs("a", {1}, {2})}, p);
  CHECK(one.ciLow == 0.0);
  CHECK(std::isinf(one.ciHigh));
}

TEST_CASE("aggregate CI is reproducible: same data, same seed, same interval") {
  Simulator sim(5);
  std::vector<PairedRuns> runs = sim.round(spec(mixedNoise(), 8));
  GatePolicy p;
  AggregateEstimate a = aggregateRatio(runs, p), b = aggregateRatio(runs, p);
  CHECK(a.ciLow == b.ciLow);
  CHECK(a.ciHigh == b.ciHigh);
}
