// parse_bench_csv's core and the gate on a 100,000-row table: parse, score (Combined Step TFLOPS),
// then the statistical gate over every shape with 8 interleaved pairs and a 12-pair A/A
// calibration. Prints the median of 5 repetitions of each step.
//   kopt_bench_parse_gate [rows=100000] [repetitions=5]
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_csv_generator.h"
#include "measure/bench_table.h"
#include "measure/scoring.h"
#include "measure/simulation.h"
#include "measure/statistics.h"

using namespace kopt::measure;
// Thread CPU time, not wall time: the build machine is shared (load averages of 20-50 on 2 cores
// were seen while recording), and CPU time is what this code costs.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  }
};

namespace {

double ms(double a, double b) { return b - a; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string csv = kopt::bench::generateGemmCsv(rows);

  // Gate input built once (the engine would assemble it from the runs' summaries).
  GatePolicy policy;
  Simulator sim(1);
  SimulationSpec spec;
  spec.shapes = rows;
  spec.pairs = static_cast<std::size_t>(policy.calibrationPairs);
  spec.noise = {0.005};
  std::vector<PairedRuns> aa = sim.round(spec);
  spec.pairs = static_cast<std::size_t>(policy.defaultPairs);
  spec.trueRatio.assign(rows, 1.03);
  std::vector<PairedRuns> runs = sim.round(spec);

  std::vector<double> tParse, tScore, tCalibrate, tGate, tTotal;
  std::size_t passCount = 0;
  Decision decision = Decision::Rollback;
  std::string firstReason;
  std::size_t reasonCount = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    TableResult parsed = parseBenchCsv(csv);
    auto t1 = Clock::now();
    if (!std::holds_alternative<BenchTable>(parsed)) {
      std::fprintf(stderr, "parse failed: %s\n", std::get<TableError>(parsed).toString().c_str());
      return 1;
    }
    const BenchTable& table = std::get<BenchTable>(parsed);
    auto scored = scoreTable(table, PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""});
    auto t2 = Clock::now();
    const ScoreVector& scores = std::get<ScoreVector>(scored);
    passCount = scores.passCount;
    Calibration cal = calibrateAa(aa, policy);
    auto t3 = Clock::now();
    // The table plays the current best (its PASS rows form the PASS set); the candidate passes
    // everywhere and is 3% faster on every shape, so the gate runs every step.
    GateInput in;
    in.calibration = std::move(cal);
    in.runs = runs;
    for (std::size_t i = 0; i < scores.shapes.size(); ++i) {
      const ShapeScore& s = scores.shapes[i];
      in.runs[i].label = s.label;
      in.calibration.shapes[i].label = s.label;
      in.candidateChecks.emplace_back(s.label, Check::Pass);
      if (s.countsAsPass()) in.bestPassLabels.push_back(s.label);
    }
    auto t4 = Clock::now();
    GateResult g = evaluateGate(in, policy);
    auto t5 = Clock::now();
    decision = g.decision;
    reasonCount = g.reasons.size();
    if (!g.reasons.empty()) firstReason = std::string(toString(g.reasons.front().code)) + ": " + g.reasons.front().message;
    tParse.push_back(ms(t0, t1));
    tScore.push_back(ms(t1, t2));
    tCalibrate.push_back(ms(t2, t3));
    tGate.push_back(ms(t4, t5));
    tTotal.push_back(ms(t0, t2) + ms(t4, t5));  // per round: parse + score + gate (calibration is once, at BASELINE)
  }
  std::printf("rows=%zu csv_bytes=%zu pass=%zu pairs=%d decision=%s reasons=%zu first: %s\n", rows, csv.size(), passCount,
              policy.defaultPairs, toString(decision), reasonCount, firstReason.c_str());
  std::printf("CPU time, median of %d: parse %.1f ms, score %.1f ms, gate %.1f ms, per-round total (parse+score+gate) %.1f ms; A/A calibration (once, at BASELINE) %.1f ms\n", reps,
              median(tParse), median(tScore), median(tGate), median(tTotal), median(tCalibrate));
  return 0;
}
