// The simulated error rates and power quoted in docs/statistics.md, for the engine that ships:
// blocks as the unit, 8 blocks per look, REMEASURE appending 8 fresh blocks to the same series,
// at most 3 looks each tested at Pocock's level, delta = the 1.5% margin, the SE floor, each shape's
// tolerance and the session model (the third-party kernel's and the process-effect tables). Noise is
// per block of the log ratio, from the H200 probes (measurement-review 3.1/3.4), Gaussian or
// heavier-tailed. Deterministic (seeded); prints markdown tables. Not a test: the doctest cases
// assert the thresholds.
//   kopt_gate_simulation [rounds=2000]
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

// Per-block sd of the A/A log ratio on the H200 (queued timer, balanced order, 75 ms blocks).
const char* const kNames[10] = {"mm_1k", "mm_4k", "mm_8k", "mlp_up", "skinny",
                                "rms_1k_1k", "rms_4k_4k", "rms_16k_4k", "rms_8k_8k", "rms_6k_5120"};
const double kBlockSd[10] = {0.0035, 0.00075, 0.0016, 0.0012, 0.0009, 0.0065, 0.0033, 0.0023, 0.0020, 0.0024};

struct Noise {
  const char* name;
  double scale;   // multiplies every shape's sd
  double tailDf;  // 0: Gaussian; else Student t with this df, scaled to the same sd
};

// The simulator's noise is per arm; a block's log ratio has sqrt(2) x that sd.
SimulationSpec specFor(const Noise& n, std::size_t blocks, std::vector<double> truth) {
  SimulationSpec s;
  s.shapes = 10;
  s.pairs = blocks;
  s.noise.clear();
  for (double sd : kBlockSd) s.noise.push_back(n.scale * sd / std::sqrt(2.0));
  s.trueRatio = std::move(truth);
  s.pairDriftSd = 0.02;  // shared by both arms of a block: cancels, as interleaving intends
  s.tailDf = n.tailDf;
  return s;
}

void append(std::vector<PairedRuns>& runs, const std::vector<PairedRuns>& more) {
  for (std::size_t s = 0; s < runs.size(); ++s) {
    runs[s].best.insert(runs[s].best.end(), more[s].best.begin(), more[s].best.end());
    runs[s].candidate.insert(runs[s].candidate.end(), more[s].candidate.begin(), more[s].candidate.end());
  }
}

struct Outcome {
  double accept = 0, note = 0, rollback = 0;
  double anyRegressed = 0;       // rounds with any REGRESSED shape
  double plantedRegressed = 0;   // rounds with the planted shape REGRESSED
  double otherRegressed = 0;     // rounds with another shape REGRESSED
  double blocks = 0;             // mean blocks used
  double looks[4] = {0, 0, 0, 0};  // share of rounds decided at look 1, 2, 3
};

// One round as the engine plays it: 8 blocks, the gate, REMEASURE appends fresh blocks.
Outcome play(const Noise& noise, const std::vector<double>& truth, int planted, int rounds, std::uint64_t seed) {
  GatePolicy policy;
  policy.bootstrapResamples = 2000;  // speed; the t-interval decides at these block counts
  Simulator sim(seed);
  Outcome o;
  for (int r = 0; r < rounds; ++r) {
    GateInput in;
    in.runs = sim.round(specFor(noise, static_cast<std::size_t>(policy.blocksPerLook), truth));
    for (std::size_t s = 0; s < in.runs.size(); ++s) {
      in.runs[s].label = kNames[s];
      in.bestPassLabels.push_back(kNames[s]);
      in.candidateChecks.emplace_back(kNames[s], Check::Pass);
    }
    for (int look = 1;; ++look) {
      in.look = look;
      GateResult g = evaluateGate(in, policy);
      if (g.decision == Decision::Remeasure) {
        std::vector<PairedRuns> more = sim.round(specFor(noise, static_cast<std::size_t>(g.pairsToAdd), truth));
        append(in.runs, more);
        continue;
      }
      o.accept += g.decision == Decision::Accept;
      o.note += g.decision == Decision::AcceptWithNote;
      o.rollback += g.decision == Decision::Rollback;
      bool any = false, other = false, at = false;
      for (std::size_t s = 0; s < g.shapes.size(); ++s) {
        if (g.shapes[s].verdict != Verdict::Regressed) continue;
        any = true;
        if (static_cast<int>(s) == planted) at = true;
        else other = true;
      }
      o.anyRegressed += any;
      o.plantedRegressed += at;
      o.otherRegressed += other;
      o.blocks += static_cast<double>(in.runs[0].best.size());
      o.looks[std::min(look, 3)] += 1;
      break;
    }
  }
  const double n = rounds;
  for (double* x : {&o.accept, &o.note, &o.rollback, &o.anyRegressed, &o.plantedRegressed, &o.otherRegressed, &o.blocks,
                    &o.looks[1], &o.looks[2], &o.looks[3]})
    *x /= n;
  return o;
}

void decisions(int rounds) {
  const Noise noises[] = {{"H200, Gaussian", 1.0, 0}, {"H200, t3 tails", 1.0, 3}, {"2x H200, Gaussian", 2.0, 0},
                          {"2x H200, t3 tails", 2.0, 3}};
  struct Case {
    const char* name;
    std::vector<double> truth;
    int planted;  // shape index of a planted change whose REGRESSED rate is reported; -1 none
  };
  std::vector<double> aa(10, 1.0), plus2(10, 1.02), mm(10, 1.0), rms(10, 1.0), hidden(10, 1.05);
  mm[0] = 0.97;      // -3% on mm_1k
  rms[5] = 0.97;     // -3% on rms_1k_1k, the noisiest shape
  hidden[5] = 0.97;  // +5% on nine shapes hides -3% on rms_1k_1k in the geomean
  const Case cases[] = {{"A/A (no change)", aa, -1},
                        {"-3% on mm_1k, rest unchanged", mm, 0},
                        {"-3% on rms_1k_1k, rest unchanged", rms, 5},
                        {"+5% on 9 shapes, -3% on rms_1k_1k", hidden, 5},
                        {"+2% on every shape", plus2, -1}};
  std::printf("| case (10 shapes) | noise | ACCEPT | ACCEPT_WITH_NOTE | ROLLBACK | any REGRESSED | planted REGRESSED | other REGRESSED | "
              "decided at look 1 / 2 / 3 | mean blocks |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::uint64_t seed = 1000;
  for (const Noise& n : noises) {
    for (const Case& c : cases) {
      const Outcome o = play(n, c.truth, c.planted, rounds, ++seed);
      char planted[16] = "-";
      if (c.planted >= 0) std::snprintf(planted, sizeof planted, "%.2f%%", 100 * o.plantedRegressed);
      std::printf("| %s | %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %s | %.2f%% | %.1f / %.1f / %.1f %% | %.1f |\n", c.name,
                  n.name, 100 * o.accept, 100 * o.note, 100 * o.rollback, 100 * o.anyRegressed, planted,
                  100 * o.otherRegressed, 100 * o.looks[1], 100 * o.looks[2], 100 * o.looks[3], o.blocks);
      std::fflush(stdout);
    }
  }
}

// Where minGain does not protect (it is 0 here), the aggregate CI alone stands between noise and
// ACCEPT: A/A false ACCEPT over all looks with the Pocock levels, and with every look at 95%.
void alphaOverLooks(int rounds) {
  std::printf("\n| A/A, 10 shapes, minGain 0, near-noise off | noise | looks tested at | false ACCEPT over all looks |\n");
  std::printf("|---|---|---|---|\n");
  for (double scale : {1.0, 4.0}) {
    for (bool pocock : {true, false}) {
      GatePolicy policy;
      policy.bootstrapResamples = 0;
      policy.minGain = 0.0;
      policy.nearNoiseGain = 0.0;
      Simulator sim(77);
      int accepted = 0;
      const Noise noise{"", scale, 0};
      for (int r = 0; r < rounds; ++r) {
        std::vector<PairedRuns> all = sim.round(specFor(noise, 24, std::vector<double>(10, 1.0)));
        for (int look = 1; look <= 3; ++look) {
          std::vector<PairedRuns> part = all;
          for (auto& x : part) {
            x.best.resize(static_cast<std::size_t>(8 * look));
            x.candidate.resize(static_cast<std::size_t>(8 * look));
          }
          GatePolicy p = policy;
          if (!pocock) p.maxLooks = 1;  // the level of one look, at every look
          const AggregateEstimate a = aggregateRatio(part, p);
          if (a.ciLow > 1.0) {
            ++accepted;
            break;
          }
        }
      }
      std::printf("| aggregate CI lower bound > 1 at any of 3 looks | %.0fx H200 | %s | %.2f%% |\n", scale,
                  pocock ? "Pocock (3 looks)" : "95% each (uncorrected)", 100.0 * accepted / rounds);
    }
  }
}

// The MDE each shape gets at 8 blocks (95% power, Holm's first step at the Pocock level over 10
// shapes, margin 1.5%), and the blocks the harness check asks for.
void mdeTable() {
  GatePolicy policy;
  const double alpha = pocockNominalAlpha(policy.maxLooks, policy.familyWiseAlpha / 10.0);
  std::printf("\n| shape | sd per block | MDE at 8 blocks | statistical part (t se terms) | blocks for MDE <= 2%% |\n");
  std::printf("|---|---|---|---|---|\n");
  for (int s = 0; s < 10; ++s) {
    for (double scale : {1.0}) {
      const double sd = scale * kBlockSd[s];
      const double mde = std::expm1(minimumDetectableEffect(sd, 8, alpha, std::log1p(policy.margin), policy.mdePower, policy.seFloor));
      const double stat = minimumDetectableEffect(sd, 8, alpha, 0.0, policy.mdePower, policy.seFloor);
      int need = -1;
      for (int n = 4; n <= policy.maxBlocks; n += 2)
        if (std::expm1(minimumDetectableEffect(sd, static_cast<std::size_t>(n), alpha, std::log1p(policy.margin),
                                               policy.mdePower, policy.seFloor)) <= policy.targetMde) {
          need = n;
          break;
        }
      std::printf("| %s | %.3f%% | %.2f%% | %.2f%% | %d |\n", kNames[s], 100 * sd, 100 * mde, 100 * stat, need);
    }
  }
}

// The BASELINE harness check on simulated 3-session A/As at the H200 noise (no process effect):
// how often it passes, how often a shape falls back to process means.
void harness(int rounds) {
  GatePolicy policy;
  std::printf("\n| 3-session A/A, 8 blocks each | noise | harness ok | rounds with a shape on process means | shapes on process means | mean blocks per look |\n");
  std::printf("|---|---|---|---|---|---|\n");
  const Noise noises[] = {{"H200, Gaussian", 1.0, 0}, {"H200, t3 tails", 1.0, 3}, {"4x H200, Gaussian", 4.0, 0}};
  for (const Noise& n : noises) {
    Simulator sim(555);
    int ok = 0, anyFallback = 0;
    long fallbackShapes = 0;
    double blocks = 0;
    for (int r = 0; r < rounds; ++r) {
      std::vector<std::vector<PairedRuns>> sessions;
      for (int p = 0; p < 3; ++p) sessions.push_back(sim.round(specFor(n, 8, {})));
      const HarnessCheck h = checkHarness(sessions, policy);
      ok += h.ok;
      int f = 0;
      for (const auto& s : h.shapes) f += s.unit == ReplicationUnit::ProcessMean;
      anyFallback += f > 0;
      fallbackShapes += f;
      blocks += h.blocksPerLook;
    }
    std::printf("| 10 shapes | %s | %.1f%% | %.1f%% | %.1f%% | %.1f |\n", n.name, 100.0 * ok / rounds,
                100.0 * anyFallback / rounds, 100.0 * fallbackShapes / (10.0 * rounds), blocks / rounds);
  }
}

}  // namespace

// Each worker session (one per arm and look) carries its own offset: the per-process effect the
// H200 showed on small kernels (docs/gpu-validation.md, third session of 2026-12-02). The sd of a
// session's candidate-minus-best mean, per shape, from the H200 A/As (mm_1k 0.5-1.4%, rms_1k_1k
// -3.1..+0.4% over three sessions, the large kernels a few hundredths).
const double kSessionSd[10] = {0.009, 0.0005, 0.0004, 0.0005, 0.0012, 0.018, 0.0075, 0.004, 0.0025, 0.001};
const std::size_t kRms16k4k = 7;

// Blocks of one worker session: the simulator's blocks, every candidate run moved by one offset
// (rms_16k_4k's by `rmsSessionSd`).
std::vector<PairedRuns> session(Simulator& sim, std::size_t blocks, const std::vector<double>& truth,
                                double rmsSessionSd) {
  std::vector<PairedRuns> runs = sim.round(specFor(Noise{"", 1.0, 0}, blocks, truth));
  for (std::size_t s = 0; s < runs.size(); ++s) {
    runs[s].label = kNames[s];
    const double sd = s == kRms16k4k ? rmsSessionSd : kSessionSd[s];
    const double offset = std::exp(sd * sim.normal());
    for (double& c : runs[s].candidate) c *= offset;
  }
  return runs;
}

// The engine as it ships against the same rounds, with more A/A sessions (gate.aa_sessions) and
// with the blocks alone (no session model, as before any floor): the BASELINE's harness check,
// then looks of fresh sessions. The planted rounds: -3% on mm_4k
// (block noise 0.075%, no process effect to speak of) and on rms_16k_4k (0.23% and a 0.4% session
// sd: where the H100's plant stayed INCONCLUSIVE under a 3-session floor, docs/gpu-validation.md),
// or with rms_16k_4k's session sd at `rmsSessionSd` instead (the H100 showed none on that shape).
void processEffect(int rounds, double rmsSessionSd) {
  std::printf("\nrms_16k_4k's per-session sd: %.2f%%\n", 100 * rmsSessionSd);
  std::printf("\n| per-session effect (H200 sizes), 10 shapes | verdicts held to | A/A sessions | A/A: false ACCEPT | "
              "A/A: a shape REGRESSED | A/A: a shape REGRESSED or IMPROVED | -3%% on mm_4k: REGRESSED there | "
              "-3%% on mm_4k: another shape REGRESSED | -3%% on rms_16k_4k: REGRESSED there |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  struct Row {
    bool sessionModel;  // false: the blocks alone (no shape held to its sessions' spread)
    int sessions;
  };
  const GatePolicy shippedPolicy;
  for (const Row row : {Row{false, 3}, Row{true, 3}, Row{true, 4}, Row{true, 6}, Row{true, 8}}) {
    const bool shipped = row.sessionModel;
    double falseAccept = 0, falseShape = 0, falseRegressed = 0, planted = 0, other = 0, plantedRms = 0;
    Simulator sim(4242);  // the same seed for every row
    for (int r = 0; r < rounds; ++r) {
      GatePolicy policy;
      policy.bootstrapResamples = 500;
      policy.aaSessions = row.sessions;
      std::vector<std::vector<PairedRuns>> aa;
      for (int k = 0; k < policy.aaSessions; ++k)
        aa.push_back(session(sim, 8, std::vector<double>(10, 1.0), rmsSessionSd));
      HarnessCheck h = checkHarness(aa, policy);
      if (!shipped)
        for (auto& n : h.calibration.shapes) n.processSd = 0.0;
      const int blocks = std::max(policy.blocksPerLook, h.blocksPerLook);
      for (int kind = 0; kind < 3; ++kind) {  // 0: A/A, 1: -3% on mm_4k, 2: -3% on rms_16k_4k
        const std::size_t plantAt = kind == 2 ? kRms16k4k : 1;
        std::vector<double> truth(10, 1.0);
        if (kind > 0) truth[plantAt] = 0.97;
        GateInput in;
        for (const char* name : kNames) {
          in.bestPassLabels.push_back(name);
          in.candidateChecks.emplace_back(name, Check::Pass);
        }
        for (int look = 1;; ++look) {
          std::vector<PairedRuns> more = session(sim, static_cast<std::size_t>(blocks), truth, rmsSessionSd);
          if (in.runs.empty()) in.runs = more;
          else append(in.runs, more);
          in.look = look;
          in.calibration = h.calibration.forSessions(look);
          const GateResult g = evaluateGate(in, policy);
          if (g.decision == Decision::Remeasure) continue;
          bool sawOther = false, sawPlanted = false, sawAny = false, sawRegressed = false;
          for (std::size_t s = 0; s < g.shapes.size(); ++s) {
            const Verdict v = g.shapes[s].verdict;
            if (v == Verdict::Regressed || v == Verdict::Improved) sawAny = true;
            if (v == Verdict::Regressed) sawRegressed = true;
            if (v == Verdict::Regressed && s == plantAt) sawPlanted = true;
            if (v == Verdict::Regressed && s != plantAt) sawOther = true;
          }
          if (kind == 0) {
            falseAccept += g.decision == Decision::Accept || g.decision == Decision::AcceptWithNote;
            falseShape += sawAny;
            falseRegressed += sawRegressed;
          } else if (kind == 1) {
            planted += sawPlanted;
            other += sawOther;
          } else {
            plantedRms += sawPlanted;
          }
          break;
        }
      }
    }
    const double n = rounds;
    char floor[96] = "blocks alone";
    if (shipped)
      std::snprintf(floor, sizeof floor, "every shape: the session model%s",
                    row.sessions == shippedPolicy.aaSessions ? " (shipped)" : "");
    std::printf("| mm_1k 0.9%%, rms_1k_1k 1.8%%, large kernels < 0.1%% | %s | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | "
                "%.2f%% | %.2f%% |\n",
                floor, row.sessions, 100 * falseAccept / n, 100 * falseRegressed / n, 100 * falseShape / n,
                100 * planted / n, 100 * other / n, 100 * plantedRms / n);
    std::fflush(stdout);
  }
}

// ---- A third-party kernel: the autotuned Triton RMSNorm of the H100 runs ----
// Per-block sd of the A/A log ratio, and each worker session's own offset (the process-effect
// part of the session means' sd: sqrt(between^2 - within SE^2)), for the five shapes of the
// H100 campaign (docs/gpu-validation.md): 4096x4096, 16384x8192, 32768x4096, 8192x14336,
// 65536x1024; autotuning left free, and pinned across processes.
const char* const kUserNames[5] = {"4096x4096", "16384x8192", "32768x4096", "8192x14336", "65536x1024"};
const double kUserBlockSd[5] = {0.0153, 0.0044, 0.0052, 0.0050, 0.0050};
const double kUserSessionFree[5] = {0.0060, 0.0, 0.0, 0.0050, 0.0124};
const double kUserSessionPinned[5] = {0.0083, 0.00165, 0.0, 0.0045, 0.0036};

// One worker session of the user's kernel: blocks whose candidate carries the session's offset.
std::vector<PairedRuns> userSession(Simulator& sim, std::size_t blocks, const std::vector<double>& truth,
                                    const double* sessionSd, double noiseScale) {
  SimulationSpec s;
  s.shapes = 5;
  s.pairs = blocks;
  s.noise.clear();
  for (double sd : kUserBlockSd) s.noise.push_back(noiseScale * sd / std::sqrt(2.0));
  s.trueRatio = truth;
  std::vector<PairedRuns> runs = sim.round(s);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k].label = kUserNames[k];
    const double offset = std::exp(noiseScale * sessionSd[k] * sim.normal());
    for (double& c : runs[k].candidate) c *= offset;
  }
  return runs;
}

struct UserBaseline {
  HarnessCheck check;
  int sessions = 0;
};

// BASELINE as the engine runs it (engine_baseline.cpp): gate.aa_sessions sessions, more (up to
// maxAaSessions) while a shape would be decidable with them, then a bias alarm alone confirmed on
// as many fresh sessions, which decide alone (and may be extended the same way).
UserBaseline userBaseline(Simulator& sim, const GatePolicy& policy, const double* sessionSd, double noiseScale) {
  UserBaseline b;
  std::vector<std::vector<PairedRuns>> aa;
  auto run = [&](int sessions) {
    for (int k = 0; k < sessions; ++k)
      aa.push_back(userSession(sim, static_cast<std::size_t>(policy.blocksPerLook), std::vector<double>(5, 1.0), sessionSd, noiseScale));
  };
  auto check = [&](std::size_t first) {
    b.check = checkHarness(std::vector<std::vector<PairedRuns>>(aa.begin() + static_cast<std::ptrdiff_t>(first), aa.end()), policy);
  };
  auto extend = [&](std::size_t first) {
    for (;;) {
      const int have = static_cast<int>(aa.size() - first);
      const int need = std::min(b.check.sessionsToDecide(), policy.maxAaSessions);
      if (need <= have) return;
      run(need - have);
      check(first);
    }
  };
  run(policy.aaSessions);
  check(0);
  extend(0);
  if (b.check.failedOnlyOnBias()) {  // confirmed on as many fresh sessions, which decide alone
    const std::size_t first = aa.size();
    run(static_cast<int>(first));
    check(first);
    extend(first);
  }
  b.sessions = static_cast<int>(aa.size());
  return b;
}

// Rounds of the user's kernel as the engine plays them, each on a baseline of its own: how often
// a round is accepted, rolled back, and which shapes are named REGRESSED.
void userKernel(int rounds) {
  struct Case {
    const char* name;
    std::vector<double> truth;
  };
  const Case cases[] = {{"A/A (no change)", std::vector<double>(5, 1.0)},
                        {"B: 65536x1024 x2.34, the rest unchanged", {1.0, 1.0, 1.0, 1.0, 2.34}},
                        {"A: 3% slower everywhere", std::vector<double>(5, 0.97)},
                        {"D: neutral (+0.15% everywhere)", std::vector<double>(5, 1.0015)},
                        {"+3% everywhere", std::vector<double>(5, 1.03)},
                        {"B with 8192x14336 5% slower", {1.0, 1.0, 1.0, 0.95, 2.34}}};
  struct Noise {
    const char* name;
    const double* session;
    double scale;
  };
  const Noise noises[] = {{"autotune pinned", kUserSessionPinned, 1.0},
                          {"autotune free", kUserSessionFree, 1.0},
                          {"pinned, 2x noise", kUserSessionPinned, 2.0}};
  std::printf("\n| H100 RMSNorm (5 shapes) | sessions | ACCEPT (incl. with note) | ROLLBACK | a shape REGRESSED | slowed shapes REGRESSED | "
              "baseline refused | A/A sessions | blocks a look | looks (mean) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::uint64_t seed = 9000;
  for (const Noise& n : noises) {
    for (const Case& c : cases) {
      Simulator sim(++seed);
      GatePolicy policy;
      policy.bootstrapResamples = 500;
      double accept = 0, rollback = 0, anyRegressed = 0, slowedRegressed = 0, slowedShapes = 0, refused = 0, sessions = 0,
             blocks = 0, looks = 0, judged = 0;
      for (int r = 0; r < rounds; ++r) {
        const UserBaseline b = userBaseline(sim, policy, n.session, n.scale);
        sessions += b.sessions;
        if (!b.check.ok) {
          ++refused;
          continue;
        }
        ++judged;
        blocks += b.check.blocksPerLook;
        GatePolicy round = policy;  // policyForPlan: the plan's blocks a look, all of its looks
        round.blocksPerLook = round.defaultPairs = round.remeasurePairs = b.check.blocksPerLook;
        round.maxPairs = b.check.blocksPerLook * round.maxLooks;
        GateInput in;
        for (const char* name : kUserNames) {
          in.bestPassLabels.push_back(name);
          in.candidateChecks.emplace_back(name, Check::Pass);
        }
        for (int look = 1;; ++look) {
          std::vector<PairedRuns> more = userSession(sim, static_cast<std::size_t>(round.blocksPerLook), c.truth, n.session, n.scale);
          if (in.runs.empty()) in.runs = more;
          else append(in.runs, more);
          in.look = look;
          in.calibration = b.check.calibration.forSessions(look);
          const GateResult g = evaluateGate(in, round);
          if (g.decision == Decision::Remeasure) continue;
          looks += look;
          accept += g.decision == Decision::Accept || g.decision == Decision::AcceptWithNote;
          rollback += g.decision == Decision::Rollback;
          bool any = false;
          for (std::size_t s = 0; s < g.shapes.size(); ++s) {
            const bool regressed = g.shapes[s].verdict == Verdict::Regressed;
            any = any || regressed;
            if (c.truth[s] < 0.99) {
              slowedShapes += 1;
              slowedRegressed += regressed;
            }
          }
          anyRegressed += any;
          break;
        }
      }
      const double j = std::max(1.0, judged);
      char slowed[16] = "-";
      if (slowedShapes > 0) std::snprintf(slowed, sizeof slowed, "%.1f%%", 100 * slowedRegressed / slowedShapes);
      std::printf("| %s | %s | %.1f%% | %.1f%% | %.1f%% | %s | %.1f%% | %.1f | %.1f | %.2f |\n", c.name, n.name, 100 * accept / j,
                  100 * rollback / j, 100 * anyRegressed / j, slowed, 100 * refused / rounds, sessions / rounds, blocks / j,
                  looks / j);
      std::fflush(stdout);
    }
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::printf("%d simulated rounds per row; 10 shapes at the H200 per-block noise; 8 blocks per look, at most 3 looks "
              "(Pocock), margin 1.5%%, SE floor 0.05%%\n\n",
              rounds);
  if (argc > 2 && std::string(argv[2]) == "user") {  // only the third-party kernel's table
    userKernel(rounds);
    return 0;
  }
  decisions(rounds);
  userKernel(rounds / 2);
  alphaOverLooks(rounds * 5);
  mdeTable();
  harness(rounds);
  processEffect(rounds / 2, kSessionSd[kRms16k4k]);
  processEffect(rounds / 2, 0.0005);
  return 0;
}
