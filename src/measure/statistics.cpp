// A/A calibration, per-shape verdicts and the aggregate estimate. The method and its numbers are
// in docs/statistics.md; the gate that combines them is gate.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string_view>

#include "measure/statistics.h"

#include "measure/percent_format.h"

namespace kopt::measure {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool positiveFinite(double v) { return std::isfinite(v) && v > 0; }

// Paired log ratios log(candidate/best), skipping pairs where either run has no usable value.
std::vector<double> logRatios(const PairedRuns& runs) {
  const std::size_t n = std::min(runs.best.size(), runs.candidate.size());
  std::vector<double> d;
  d.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (positiveFinite(runs.best[i]) && positiveFinite(runs.candidate[i])) d.push_back(std::log(runs.candidate[i] / runs.best[i]));
  return d;
}

// Every shape's paired log ratios in one allocation, aligned to the pair index (NaN where a run
// has no usable value): computed once per round and shared by the per-shape verdicts and the
// aggregate (logs dominated the gate's time at 100k shapes).
struct LogRatioTable {
  std::vector<double> values;       // shape s occupies [offset[s], offset[s] + length[s])
  std::vector<std::size_t> offset, length;
  std::size_t common = 0;           // pair indices every shape has

  explicit LogRatioTable(const std::vector<PairedRuns>& runs) : offset(runs.size()), length(runs.size()) {
    std::size_t total = 0;
    common = runs.empty() ? 0 : std::numeric_limits<std::size_t>::max();
    for (std::size_t s = 0; s < runs.size(); ++s) {
      offset[s] = total;
      length[s] = std::min(runs[s].best.size(), runs[s].candidate.size());
      total += length[s];
      common = std::min(common, length[s]);
    }
    values.resize(total);
    for (std::size_t s = 0; s < runs.size(); ++s) {
      const PairedRuns& r = runs[s];
      double* out = values.data() + offset[s];
      for (std::size_t i = 0; i < length[s]; ++i)
        out[i] = positiveFinite(r.best[i]) && positiveFinite(r.candidate[i]) ? std::log(r.candidate[i] / r.best[i]) : kNaN;
    }
  }
  const double* of(std::size_t s) const { return values.data() + offset[s]; }
};

struct Moments {
  double mean = 0.0;
  double sd = 0.0;  // sample sd (n - 1)
};

// Mean and sd of the non-NaN values of [d, d + n); `count` receives how many there were.
Moments momentsSkippingNaN(const double* d, std::size_t n, std::size_t& count) {
  Moments m;
  count = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isnan(d[i])) {
      m.mean += d[i];
      ++count;
    }
  if (!count) return m;
  m.mean /= static_cast<double>(count);
  if (count < 2) return m;
  double ss = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isnan(d[i])) ss += (d[i] - m.mean) * (d[i] - m.mean);
  m.sd = std::sqrt(ss / static_cast<double>(count - 1));
  return m;
}

Moments moments(const std::vector<double>& v) {
  Moments m;
  if (v.empty()) return m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  if (v.size() < 2) return m;
  double ss = 0;
  for (double x : v) ss += (x - m.mean) * (x - m.mean);
  m.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return m;
}

// Quantile with linear interpolation between order statistics (R type 7).
double quantile(std::vector<double> v, double p) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1.0) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// t quantiles are asked for the same (p, df) over and over (every shape with the same pair
// count); the bisection is cheap but not free at 100k shapes.
class TQuantiles {
 public:
  double operator()(double p, double df) {
    auto key = std::make_pair(p, df);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    double q = studentTQuantile(p, df);
    cache_.emplace(key, q);
    return q;
  }

 private:
  std::map<std::pair<double, double>, double> cache_;
};

std::string percent(double relative) { return percentText(relative); }

// The spread of one shape's mean log ratio at a look, under two models: blocks independent (their
// SE and n - 1 degrees of freedom), and worker sessions the unit (the A/A session means' sd over
// the square root of the round's sessions, with the A/A's sessions - 1 degrees of freedom: a t
// pivot whose level holds whatever the process effect). Every interval is the wider of the two
// and every p the larger, so each test keeps its level under either model.
struct Spread {
  double blockSe = 0.0, blockDf = 1.0;
  double sessionSe = 0.0, sessionDf = 0.0;  // sessionDf 0: no session model

  bool sessions() const { return sessionSe > 0 && sessionDf > 0; }
  template <class Quantiles>
  double width(double q, Quantiles& tq) const {
    const double w = tq(q, blockDf) * blockSe;
    return sessions() ? std::max(w, tq(q, sessionDf) * sessionSe) : w;
  }
  double twoSidedP(double m) const {
    auto p = [m](double se, double df) {
      if (se > 0) return std::min(1.0, 2.0 * studentTUpperTail(std::fabs(m) / se, df));
      return m == 0.0 ? 1.0 : 0.0;  // identical ratios in every pair
    };
    const double b = p(blockSe, blockDf);
    return sessions() ? std::max(b, p(sessionSe, sessionDf)) : b;
  }
};

// A shape's spread from its blocks and its calibration (already divided over the round's
// sessions). A calibration written before the session model carries processDf 0 and an upper
// bound as processSd: that is a plain floor on the blocks' SE, as it was then.
Spread spreadOf(double sd, std::size_t blocks, const ShapeNoise* noise, const GatePolicy& policy) {
  Spread s;
  s.blockSe = std::max(sd / std::sqrt(static_cast<double>(blocks)), policy.seFloor);
  s.blockDf = static_cast<double>(blocks > 1 ? blocks - 1 : 1);
  if (noise && noise->processSd > 0) {
    if (noise->processDf > 0) {
      s.sessionSe = noise->processSd;
      s.sessionDf = noise->processDf;
    } else {
      s.blockSe = std::max(s.blockSe, noise->processSd);
    }
  }
  return s;
}

double clampedDeltaLog(double deltaRelative, const GatePolicy& policy) {
  return std::min(std::log1p(policy.regressionTolerance), std::max(std::log1p(policy.deltaFloor), std::log1p(deltaRelative)));
}

}  // namespace

Calibration Calibration::forSessions(int sessions) const {
  Calibration out = *this;
  const double scale = 1.0 / std::sqrt(static_cast<double>(std::max(1, sessions)));
  for (auto& n : out.shapes) n.processSd *= scale;
  return out;
}

const ShapeNoise* Calibration::find(const std::string& label) const {
  for (const auto& s : shapes)
    if (s.label == label) return &s;
  return nullptr;
}

Calibration calibrateAa(const std::vector<PairedRuns>& aa, const GatePolicy& policy) {
  Calibration out;
  out.shapes.reserve(aa.size());
  for (const auto& runs : aa) {
    ShapeNoise s;
    s.label = runs.label;
    std::vector<double> d = logRatios(runs);
    s.pairs = d.size();
    Moments m = moments(d);
    s.sdLogRatio = m.sd;
    for (double& x : d) x = std::fabs(x);
    s.q975 = d.empty() ? 0.0 : quantile(d, policy.aaQuantile);
    // The margin is policy: deriving it from the A/A spread of one pair granted noisy shapes a
    // "no change" zone up to the 5% tolerance (measurement-review 1.4).
    s.delta = std::expm1(clampedDeltaLog(policy.margin, policy));
    out.shapes.push_back(std::move(s));
  }
  return out;
}

const char* toString(ReplicationUnit unit) { return unit == ReplicationUnit::Block ? "block" : "process_mean"; }

double toleranceLevel(const GatePolicy& policy) {
  return pocockNominalAlpha(std::max(1, policy.maxLooks), std::min(0.5, 2.0 * policy.familyWiseAlpha)) / 2.0;
}

ShapePlan planShape(double sdPerBlock, double floorPerLook, int floorDf, int blocksPerLook, const GatePolicy& policy) {
  ShapePlan plan;
  const int looks = std::max(1, policy.maxLooks);
  const double level = toleranceLevel(policy);
  const double toleranceLog = std::log1p(policy.regressionTolerance);
  const double deltaLog = clampedDeltaLog(policy.margin, policy);
  const int n = std::max(2, blocksPerLook);
  // What an unchanged shape's interval reaches at look L: its lower end sits about
  // t_{1-a} SE below the truth, and the estimate itself t_{power} SE below it in the unlucky
  // (1 - power) of rounds.
  auto reach = [&](int look) {
    Spread spread;
    const double blocks = static_cast<double>(n) * look;
    spread.blockSe = std::max(sdPerBlock / std::sqrt(blocks), policy.seFloor);
    spread.blockDf = blocks - 1.0;
    spread.sessionSe = floorPerLook / std::sqrt(static_cast<double>(look));
    spread.sessionDf = floorDf;
    auto tQuantile = [](double p, double df) { return studentTQuantile(p, df); };
    return spread.width(1.0 - level, tQuantile) + spread.width(policy.tolerancePower, tQuantile);
  };
  const double toleranceLogOfPlan = std::min(toleranceLog, std::max(deltaLog, reach(1)));
  plan.tolerance = std::expm1(toleranceLogOfPlan);
  plan.toleranceAtLastLook = std::expm1(reach(looks));
  for (int look = 1; look <= looks; ++look)
    if (reach(look) <= toleranceLogOfPlan * (1.0 + 1e-12)) {
      plan.looksNeeded = look;
      break;
    }
  return plan;
}

namespace {

// The session model as a plain floor for the MDE's sizing (which applies the blocks' quantiles):
// the session sd scaled by how much wider its t quantile is than the normal one at 95% two-sided,
// an approximation of that model's wider interval, used only to size blocks, never in a verdict.
double sessionFloor(double sd, int df) {
  if (sd <= 0 || df <= 0) return 0.0;
  return sd * studentTQuantile(0.975, df) / 1.96;
}

// gate.aa_sessions' upper bound (manifest_validate.cpp): the most sessions a fix may name.
constexpr int kMostAaSessions = 12;

// One shape's A/A summary over the sessions, before the plan is sized.
struct ShapeSessions {
  std::vector<double> all, means;
  double pooledSd = 0.0, withinSe = 0.0;
};

ShapeSessions sessionsOf(const std::string& label, const std::vector<std::vector<PairedRuns>>& perProcess) {
  ShapeSessions out;
  double pooledSs = 0.0, withinSeSum = 0.0;
  std::size_t pooledDf = 0;
  for (const auto& session : perProcess) {
    const PairedRuns* runs = nullptr;
    for (const auto& r : session)
      if (r.label == label) {
        runs = &r;
        break;
      }
    if (!runs) continue;
    const std::vector<double> d = logRatios(*runs);
    out.all.insert(out.all.end(), d.begin(), d.end());
    if (d.size() < 2) continue;
    const Moments m = moments(d);
    out.means.push_back(m.mean);
    pooledSs += m.sd * m.sd * static_cast<double>(d.size() - 1);
    pooledDf += d.size() - 1;
    withinSeSum += m.sd / std::sqrt(static_cast<double>(d.size()));
  }
  out.pooledSd = pooledDf ? std::sqrt(pooledSs / static_cast<double>(pooledDf)) : 0.0;
  out.withinSe = out.means.empty() ? 0.0 : withinSeSum / static_cast<double>(out.means.size());
  return out;
}

// What would make an undecidable shape decidable: more A/A sessions (the floor's upper bound
// tightens with its degrees of freedom), more looks, or a wider regression tolerance.
void fixesFor(ShapeHarness& h, double pooledSd, int blocksPerLook, const GatePolicy& policy) {
  const int df = static_cast<int>(h.processes) - 1;
  h.toleranceToDecide = planShape(pooledSd, h.floorPerLook, df, blocksPerLook, policy).toleranceAtLastLook;
  for (int sessions = std::max(policy.aaSessions, static_cast<int>(h.processes)) + 1; sessions <= kMostAaSessions; ++sessions) {
    if (planShape(pooledSd, h.floorPerLook, sessions - 1, blocksPerLook, policy).looksNeeded > 0) {
      h.sessionsToDecide = sessions;
      break;
    }
  }
  for (int looks = policy.maxLooks + 1; looks <= 10; ++looks) {
    GatePolicy more = policy;
    more.maxLooks = looks;
    if (planShape(pooledSd, h.floorPerLook, df, blocksPerLook, more).looksNeeded > 0) {
      h.looksToDecide = looks;
      break;
    }
  }
}

std::string undecidableProblem(const ShapeHarness& h, double sdPerBlock, const GatePolicy& policy) {
  std::string fix;
  auto either = [&fix](const std::string& option) { fix += (fix.empty() ? "" : ", or ") + option; };
  if (h.sessionsToDecide)
    either("gate.aa_sessions: " + std::to_string(h.sessionsToDecide) + " (" +
           std::to_string(h.sessionsToDecide - policy.aaSessions) +
           " more A/A worker sessions at BASELINE: the sessions' sd is then known to more degrees of freedom)");
  if (h.looksToDecide)
    either("gate.max_looks: " + std::to_string(h.looksToDecide) + " (a neutral round then takes up to " +
           std::to_string(h.looksToDecide) + " looks)");
  // The manifest takes percent; rounded up to a tenth so the value given does decide.
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f", std::ceil(h.toleranceToDecide * 1000.0) / 10.0);
  either(std::string("gate.regression_pct: ") + pct + " (accepts a slowdown up to that on every shape)");
  return "fix the plan: " + h.label + " cannot be shown within the regression tolerance " +
         percentText(policy.regressionTolerance) + " in " + std::to_string(policy.maxLooks) +
         " looks: its worker sessions disagree (sd of their means " + percentText(h.betweenSd) + " over " +
         std::to_string(h.processes) + " sessions), sd per block " +
         percentText(sdPerBlock) + "; the last look could show " + percentText(h.toleranceToDecide) + ". Set " + fix +
         "; or remove the per-process effect at its source (docs/statistics.md section 3)";
}

}  // namespace

HarnessCheck checkHarness(const std::vector<std::vector<PairedRuns>>& perProcess, const GatePolicy& policy) {
  HarnessCheck out;
  // The shapes are the first session's; another session's are matched by label.
  std::vector<std::string> labels;
  if (!perProcess.empty())
    for (const auto& r : perProcess.front()) labels.push_back(r.label);
  const std::size_t k = labels.size();
  const int looks = std::max(1, policy.maxLooks);
  // The per-shape test the gate will run: Holm's first step at the Pocock level over k shapes.
  const double perShapeAlpha = pocockNominalAlpha(looks, policy.familyWiseAlpha / static_cast<double>(std::max<std::size_t>(k, 1)));
  const double deltaLog = clampedDeltaLog(policy.margin, policy);
  const double delta = std::expm1(deltaLog);
  const int maxUnits = std::max(policy.maxBlocks, 4);
  // The MDE counts the session model: blocks cannot make a look more certain than sessions agree.
  auto mdeAt = [&](double sd, int n, double floor) {
    return std::expm1(minimumDetectableEffect(sd, static_cast<std::size_t>(n), perShapeAlpha, deltaLog, policy.mdePower,
                                              std::max(policy.seFloor, floor)));
  };
  // The bias test runs on every shape: at 2 SE each, five unbiased shapes would refuse one honest
  // harness in four. Bonferroni over the k shapes keeps the family's false refusal at
  // familyWiseAlpha (k = 1: 1.96 SE, the "2 SE" of measurement-review 3).
  const double biasLevel = 1.0 - policy.familyWiseAlpha / (2.0 * static_cast<double>(std::max<std::size_t>(k, 1)));
  const double biasZ = normalQuantile(biasLevel);
  int planBlocks = std::max(policy.blocksPerLook, 2);
  out.ok = k > 0;
  if (!k) out.problems.push_back("fix the harness: the A/A reported no shapes");

  // First pass: each shape's noise, its floor, and the blocks it asks of a look.
  std::vector<ShapeSessions> sessions;
  for (const std::string& label : labels) {
    ShapeHarness h;
    h.label = label;
    ShapeSessions ss = sessionsOf(label, perProcess);
    h.blocks = ss.all.size();
    h.processes = ss.means.size();
    h.bias = moments(ss.all).mean;
    h.withinSe = std::max(policy.seFloor, ss.withinSe);
    h.betweenSd = moments(ss.means).sd;
    h.processOk = h.processes >= 2 && h.betweenSd <= policy.harnessBetweenRatio * h.withinSe;
    // Too few sessions to tell: the block stays the unit, but the check has not passed.
    h.unit = h.processOk || h.processes < 2 ? ReplicationUnit::Block : ReplicationUnit::ProcessMean;
    h.sdPerUnit = h.unit == ReplicationUnit::Block ? ss.pooledSd : h.betweenSd;
    // The bias is the mean over every block, so its SE is the blocks' (pooled sd / sqrt(blocks)),
    // but never below what the session means' own scatter says (betweenSd / sqrt(sessions)):
    // a session effect within the process check's 1.5x still moves the grand mean.
    const double blockSe = h.blocks ? ss.pooledSd / std::sqrt(static_cast<double>(h.blocks)) : 0.0;
    const double sessionSe = h.processes >= 2 ? h.betweenSd / std::sqrt(static_cast<double>(h.processes)) : 0.0;
    h.biasSe = std::max({blockSe, sessionSe, policy.seFloor});
    // Where the sessions' scatter sets the SE, it is known to processes - 1 degrees of freedom:
    // the t quantile, not z (with 3 sessions a z limit refused honest shapes whose sessions
    // disagree in about one baseline in ten, bench/gate_simulation.cpp).
    const double biasQuantile = sessionSe > blockSe && h.processes >= 2
                                    ? studentTQuantile(biasLevel, static_cast<double>(h.processes - 1))
                                    : biasZ;
    h.biasLimit = std::max(policy.harnessBiasFloor, biasQuantile * h.biasSe);
    h.biasOk = h.blocks >= 2 && std::fabs(h.bias) <= h.biasLimit;
    // A look is one pair of worker sessions: its mean is no more certain than sessions disagree,
    // and the 1.5x test above lets a process effect through (3 sessions: 2 degrees of freedom).
    // On the H200 mm_1k passed it at 0.48% against a within SE of 0.52% and then read REGRESSED
    // and IMPROVED against itself in A/A rounds (docs/gpu-validation.md). Every verdict therefore
    // also holds under the session model: this sd, t with sessions - 1 degrees of freedom.
    h.floorPerLook = h.processes >= 2 ? h.betweenSd : 0.0;
    const int floorDf = h.processes >= 2 ? static_cast<int>(h.processes) - 1 : 0;
    // Blocks are run in even counts (ABBA/BAAB stays balanced); sessions in any count >= 2. The
    // MDE of a block-unit shape counts the session model as a floor at its t quantile's scale.
    const int first = h.unit == ReplicationUnit::Block ? 4 : 2, step = h.unit == ReplicationUnit::Block ? 2 : 1;
    const double unitFloor = h.unit == ReplicationUnit::Block ? sessionFloor(h.floorPerLook, floorDf) : 0.0;
    h.unitsNeeded = maxUnits;
    h.reachable = false;
    if (h.processes >= 1) {
      for (int n = first; n <= maxUnits; n += step)
        if (mdeAt(h.sdPerUnit, n, unitFloor) <= policy.targetMde) {
          h.unitsNeeded = n;
          h.reachable = true;
          break;
        }
    }
    if (h.unit == ReplicationUnit::Block && h.processes >= 1) {
      // A shape that cannot reach the target asks for blocks only until its block SE reaches its
      // floor: past it a look is no more certain (an H100 RMSNorm shape asked for 30 blocks a look
      // under a 4 % floor), and its tolerance, not a refusal, takes the rest.
      int need = h.unitsNeeded;
      if (!h.reachable) {
        need = first;
        while (need < maxUnits && h.sdPerUnit / std::sqrt(static_cast<double>(need)) > std::max(unitFloor, policy.seFloor))
          need += step;
      }
      planBlocks = std::max(planBlocks, need);
    }
    out.shapes.push_back(std::move(h));
    sessions.push_back(std::move(ss));
  }
  out.blocksPerLook = planBlocks + planBlocks % 2;

  // Second pass: at the plan's blocks per look, each shape's tolerance and the looks it needs.
  for (std::size_t s = 0; s < out.shapes.size(); ++s) {
    ShapeHarness& h = out.shapes[s];
    ShapeSessions& ss = sessions[s];
    const std::string& label = h.label;
    const int floorDf = h.processes >= 2 ? static_cast<int>(h.processes) - 1 : 0;
    const ShapePlan plan = planShape(ss.pooledSd, h.floorPerLook, floorDf, out.blocksPerLook, policy);
    h.tolerance = plan.tolerance;
    h.looksNeeded = plan.looksNeeded;
    h.decidable = h.processes >= 2 && plan.looksNeeded > 0;
    if (h.processes >= 2 && !h.decidable) fixesFor(h, ss.pooledSd, out.blocksPerLook, policy);
    out.looksNeeded = std::max(out.looksNeeded, h.looksNeeded);
    const double unitFloor = h.unit == ReplicationUnit::Block ? sessionFloor(h.floorPerLook, floorDf) : 0.0;
    h.mdeAtPlan = h.processes ? mdeAt(h.sdPerUnit, std::max(policy.blocksPerLook, 2), unitFloor)
                              : std::numeric_limits<double>::infinity();
    h.mdeAtNeeded = h.processes ? mdeAt(h.sdPerUnit, h.unitsNeeded, unitFloor) : std::numeric_limits<double>::infinity();

    std::string& msg = h.message;
    msg = label + ": A/A bias " + percentText(h.bias) + (h.biasOk ? " within " : " BEYOND ") + percentText(h.biasLimit) +
          "; between-session sd " + percentText(h.betweenSd) + " vs within SE " + percentText(h.withinSe) + " over " +
          std::to_string(h.processes) + " sessions";
    if (h.processes < 2) msg += " (not checked: at least 2 sessions needed)";
    else if (!h.processOk)
      msg += " (above " + percentText(policy.harnessBetweenRatio * h.withinSe) + ": unit falls back to process means)";
    msg += "; sd per " + std::string(h.unit == ReplicationUnit::Block ? "block " : "session mean ") + percentText(h.sdPerUnit) +
           ", MDE " + percentText(h.mdeAtPlan) + " at " + std::to_string(policy.blocksPerLook);
    if (h.reachable)
      msg += ", target " + percentText(policy.targetMde) + " reached at " + std::to_string(h.unitsNeeded) +
             (h.unit == ReplicationUnit::Block ? " blocks" : " sessions");
    else
      msg += ", target " + percentText(policy.targetMde) + " not reached (MDE " + percentText(h.mdeAtNeeded) + " at " +
             std::to_string(h.unitsNeeded) + ")";
    msg += "; session sd " + percentText(h.floorPerLook) + " (" + std::to_string(floorDf) + " df)";
    if (h.decidable)
      msg += "; judged within " + percentText(h.tolerance) + ", an unchanged shape shown so by look " +
             std::to_string(h.looksNeeded);
    else if (h.processes >= 2)
      msg += "; NOT decidable within " + percentText(policy.regressionTolerance) + " in " + std::to_string(looks) + " looks";

    if (!h.biasOk)
      out.problems.push_back("fix the harness: " + label + " reads " + percentText(h.bias) +
                             " against itself (limit " + percentText(h.biasLimit) +
                             "): an order or arm effect (batch order, per-arm inputs, warm-up)");
    if (h.processes >= 2 && !h.decidable) out.problems.push_back(undecidableProblem(h, ss.pooledSd, policy));
    if (h.processes < 2)
      out.problems.push_back("fix the harness: " + label + " has valid blocks in " + std::to_string(h.processes) +
                             " worker session(s); the process check needs at least 2");
    out.ok = out.ok && h.biasOk && h.decidable;

    ShapeNoise noise;
    noise.label = label;
    noise.pairs = h.blocks;
    noise.sdLogRatio = ss.pooledSd;
    for (double& x : ss.all) x = std::fabs(x);
    noise.q975 = ss.all.empty() ? 0.0 : quantile(ss.all, policy.aaQuantile);
    noise.delta = delta;
    noise.processSd = h.floorPerLook;
    noise.processDf = floorDf;
    noise.tolerance = h.tolerance;
    out.calibration.shapes.push_back(std::move(noise));
  }
  return out;
}

int HarnessCheck::sessionsToDecide() const {
  if (ok || shapes.empty()) return 0;
  int need = 0;
  for (const ShapeHarness& h : shapes) {
    if (h.processes < 2) return 0;
    if (h.decidable) continue;
    // No session count decides at the current estimate: ask for the most. An sd from 2 degrees of
    // freedom is twice its true value one time in ten, and more sessions re-estimate it.
    need = std::max(need, h.sessionsToDecide ? h.sessionsToDecide : kMostAaSessions);
  }
  return need;
}

bool HarnessCheck::failedOnlyOnBias() const {
  if (ok || shapes.empty()) return false;
  bool biased = false;
  for (const ShapeHarness& h : shapes) {
    if (!h.decidable || h.processes < 2) return false;
    biased = biased || !h.biasOk;
  }
  return biased;
}

namespace {

std::vector<ShapeVerdict> verdicts(const std::vector<PairedRuns>& runs, const LogRatioTable& table,
                                   const Calibration& calibration, const GatePolicy& policy) {
  const std::size_t minPairs = static_cast<std::size_t>(std::max(2, policy.minPairs));
  std::vector<ShapeVerdict> out(runs.size());
  std::vector<Moments> stats(runs.size());
  std::vector<double> p2(runs.size(), 1.0);
  std::vector<Spread> spreads(runs.size());
  std::vector<const ShapeNoise*> noise(runs.size(), nullptr);
  for (std::size_t s = 0; s < runs.size(); ++s) noise[s] = calibration.find(runs[s].label);
  std::size_t k = 0;
  for (std::size_t s = 0; s < runs.size(); ++s) {
    std::size_t count = 0;
    stats[s] = momentsSkippingNaN(table.of(s), table.length[s], count);
    out[s].label = runs[s].label;
    out[s].pairs = count;
    if (count < minPairs) continue;
    ++k;
    spreads[s] = spreadOf(stats[s].sd, count, noise[s], policy);
    p2[s] = spreads[s].twoSidedP(stats[s].mean);
  }
  const std::vector<double> holm = holmAdjust(p2);
  // Every look is tested at Pocock's per-look level for maxLooks looks, so the error over all
  // looks stays at familyWiseAlpha. Holm's first step compares with pocock(alpha/k); the later
  // steps use the same per-test level times their multiplicity, which is conservative (the
  // Pocock level per unit of alpha grows with alpha) and keeps one Holm adjustment.
  const int looks = std::max(1, policy.maxLooks);
  const double alpha = policy.familyWiseAlpha;
  const double perShapeAlpha = pocockNominalAlpha(looks, alpha / static_cast<double>(std::max<std::size_t>(k, 1)));
  const double holmAlpha = perShapeAlpha * static_cast<double>(std::max<std::size_t>(k, 1));
  // TOST's one-sided level, corrected over the looks the same way (a false SAME over looks). The
  // non-inferiority claim (withinTolerance) uses the same interval: ACCEPT needs it on every
  // shape, an intersection-union test, so no correction over the shapes is due.
  const double tostAlpha = toleranceLevel(policy);
  TQuantiles tq;
  // delta is the policy margin for every shape; the calibration's stored delta is not used (old
  // ledgers recorded a noise-derived one).
  const double deltaLog = clampedDeltaLog(policy.margin, policy);

  for (std::size_t s = 0; s < runs.size(); ++s) {
    ShapeVerdict& v = out[s];
    v.delta = std::expm1(deltaLog);
    // Calibrations from before tolerances existed carry 0: the margin, the old rule.
    const double toleranceLog = std::min(std::log1p(policy.regressionTolerance),
                                         std::max(deltaLog, std::log1p(noise[s] ? noise[s]->tolerance : 0.0)));
    v.tolerance = std::expm1(toleranceLog);
    const double m = stats[s].mean;
    v.ratio = std::exp(m);
    v.sdLogRatio = stats[s].sd;
    if (v.pairs < minPairs) {
      v.verdict = Verdict::Inconclusive;
      v.ciLow = v.tostLow = 0.0;
      v.ciHigh = v.tostHigh = std::numeric_limits<double>::infinity();
      v.mde = std::numeric_limits<double>::infinity();
      v.note = std::to_string(v.pairs) + " valid pairs, at least " + std::to_string(minPairs) + " needed";
      continue;
    }
    const Spread& spread = spreads[s];
    const double simLog = spread.width(1.0 - perShapeAlpha / 2.0, tq), tostLog = spread.width(1.0 - tostAlpha, tq);
    const double simWidth = std::exp(simLog), tostWidth = std::exp(tostLog);
    v.ciLow = v.ratio / simWidth;
    v.ciHigh = v.ratio * simWidth;
    const double tostLowLog = m - tostLog, tostHighLog = m + tostLog;
    v.tostLow = v.ratio / tostWidth;
    v.tostHigh = v.ratio * tostWidth;
    const bool significant = holm[s] < holmAlpha;
    v.regressionExcluded = tostLowLog >= -deltaLog;
    v.withinTolerance = tostLowLog >= -toleranceLog;
    v.pRegressed = m < 0 ? holm[s] : 1.0;
    v.pImproved = m > 0 ? holm[s] : 1.0;
    v.mde = std::expm1(simLog > 0 ? std::max(deltaLog, simLog) + spread.width(policy.mdePower, tq) : deltaLog);

    if (significant && m < -deltaLog) {
      v.verdict = Verdict::Regressed;
      std::string& n = v.note;
      n.reserve(80);
      n += "slower by ";
      appendPercent(n, -std::expm1(m));
      n += " (CI ";
      appendPercent(n, v.ciLow - 1);
      n += " .. ";
      appendPercent(n, v.ciHigh - 1);
      n += "), beyond delta ";
      appendPercent(n, v.delta);
    } else if (significant && m > deltaLog) {
      v.verdict = Verdict::Improved;
      std::string& n = v.note;
      n.reserve(48);
      n += "faster by ";
      appendPercent(n, std::expm1(m));
      n += ", beyond delta ";
      appendPercent(n, v.delta);
    } else if (tostLowLog >= -deltaLog && tostHighLog <= deltaLog) {
      v.verdict = Verdict::Same;
      if (significant && m < 0) {
        v.slowedWithinDelta = true;
        v.note = "slower by " + percent(-std::expm1(m)) + ", within delta " + percent(v.delta);
      }
    } else if (v.regressionExcluded) {
      v.verdict = Verdict::Inconclusive;  // faster, not shown beyond delta: nothing to act on, no note
    } else if (v.withinTolerance) {
      v.verdict = Verdict::Inconclusive;  // not resolved to delta, but shown within its tolerance
      std::string& n = v.note;
      n.reserve(96);
      n += "ratio ";
      appendPercent(n, v.ratio - 1);
      n += ", interval ";
      appendPercent(n, v.tostLow - 1);
      n += " .. ";
      appendPercent(n, v.tostHigh - 1);
      n += ": within its tolerance ";
      appendPercent(n, v.tolerance);
    } else {
      v.verdict = Verdict::Inconclusive;
      std::string& n = v.note;  // the common verdict of a noisy round: built without temporaries
      n.reserve(96);
      n += "ratio ";
      appendPercent(n, v.ratio - 1);
      n += ", interval ";
      appendPercent(n, v.tostLow - 1);
      n += " .. ";
      appendPercent(n, v.tostHigh - 1);
      n += (tostLowLog > deltaLog || tostHighLog < -deltaLog) ? " beyond delta " : " crosses delta ";
      appendPercent(n, v.delta);
      if (tostLowLog > deltaLog || tostHighLog < -deltaLog) n += " but not significant after Holm";
      n += "; MDE ";
      appendPercent(n, v.mde);
      n += "; tolerance ";
      appendPercent(n, v.tolerance);
    }
  }
  return out;
}

// `sessions`: the aggregate's spread under the worker-session model (sessionSe 0: none).
AggregateEstimate aggregate(const std::vector<PairedRuns>& runs, const LogRatioTable& table, const GatePolicy& policy,
                            const Spread& sessions) {
  AggregateEstimate out;
  out.ciLow = 0.0;
  out.ciHigh = std::numeric_limits<double>::infinity();
  if (runs.empty()) return out;

  // Point estimate: the geomean over shapes of each shape's ratio, from all of its pairs.
  double pointLog = 0.0;
  std::size_t shapesWithData = 0;
  const std::size_t common = table.common;
  for (std::size_t s = 0; s < runs.size(); ++s) {
    std::size_t count = 0;
    const Moments m = momentsSkippingNaN(table.of(s), table.length[s], count);
    if (count) {
      pointLog += m.mean;
      ++shapesWithData;
    }
  }
  if (!shapesWithData) return out;
  pointLog /= static_cast<double>(shapesWithData);
  out.ratio = std::exp(pointLog);

  // Per pair index: the mean log ratio over all shapes. Indices where some shape has no usable
  // pair are dropped, so every resample keeps whole pairs (and the shapes' correlation).
  std::vector<double> sums(common, 0.0);
  std::vector<char> usable(common, 1);
  for (std::size_t s = 0; s < runs.size(); ++s) {
    const double* d = table.of(s);
    for (std::size_t i = 0; i < common; ++i) {
      if (std::isnan(d[i])) usable[i] = 0;
      else sums[i] += d[i];
    }
  }
  std::vector<double> a;
  a.reserve(common);
  for (std::size_t i = 0; i < common; ++i)
    if (usable[i]) a.push_back(sums[i] / static_cast<double>(runs.size()));
  out.pairs = a.size();
  if (a.size() < 2) return out;
  const Moments am = moments(a);
  const double shift = pointLog - am.mean;  // nonzero only when shapes have extra pairs of their own

  // The interval of every look at Pocock's per-look level for maxLooks looks: a no-change
  // candidate clears the lower bound at some look with probability at most (1 - confidence) / 2.
  const double conf =
      1.0 - pocockNominalAlpha(std::max(1, policy.maxLooks), std::min(0.999999, std::max(1e-12, 1.0 - policy.aggregateConfidence)));
  Spread spread = sessions;
  spread.blockSe = std::max({am.sd / std::sqrt(static_cast<double>(a.size())), policy.seFloor, sessions.blockSe});
  spread.blockDf = static_cast<double>(a.size() - 1);
  auto tQuantile = [](double p, double df) { return studentTQuantile(p, df); };
  const double tHalf = spread.width(0.5 + 0.5 * conf, tQuantile);
  double low = am.mean - tHalf, high = am.mean + tHalf;

  // Deterministic bootstrap: mt19937_64 is specified by the standard, and the index draw is a
  // plain multiply-shift, so the same data and seed give the same interval everywhere.
  const int resamples = std::max(policy.bootstrapResamples, 0);
  if (resamples > 0) {
    std::mt19937_64 rng(policy.seed);
    const unsigned __int128 n = a.size();
    std::vector<double> means(static_cast<std::size_t>(resamples));
    for (int b = 0; b < resamples; ++b) {
      double sum = 0.0;
      for (std::size_t j = 0; j < a.size(); ++j) sum += a[static_cast<std::size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64)];
      means[static_cast<std::size_t>(b)] = sum / static_cast<double>(a.size());
    }
    low = std::min(low, quantile(means, 0.5 - 0.5 * conf));
    high = std::max(high, quantile(means, 0.5 + 0.5 * conf));
  }
  out.ciLow = std::exp(low + shift);
  out.ciHigh = std::exp(high + shift);
  return out;
}

}  // namespace

std::vector<ShapeVerdict> compareShapes(const std::vector<PairedRuns>& runs, const Calibration& calibration,
                                        const GatePolicy& policy) {
  return verdicts(runs, LogRatioTable(runs), calibration, policy);
}

AggregateEstimate aggregateRatio(const std::vector<PairedRuns>& runs, const GatePolicy& policy) {
  return aggregate(runs, LogRatioTable(runs), policy, Spread{});
}

RoundComparison compareRound(const std::vector<PairedRuns>& runs, const Calibration& calibration, const GatePolicy& policy) {
  const LogRatioTable table(runs);
  RoundComparison out;
  out.shapes = verdicts(runs, table, calibration, policy);
  if (runs.empty()) return out;
  // The blocks' bootstrap cannot see the worker sessions' offsets: under the session model the
  // aggregate's SE is the mean of the shapes' session SEs, the sd of a mean of offsets whatever
  // their correlation (one process may move every shape at once), with the fewest degrees of
  // freedom among them. One shape whose sessions disagree by 1 % would otherwise pass its offset
  // to the aggregate as a significant gain. (Legacy floors, processDf 0, floor the blocks' SE.)
  Spread sessions;
  double sessionSum = 0.0, legacySum = 0.0;
  for (const auto& r : runs) {
    const ShapeNoise* n = calibration.find(r.label);
    if (!n || n->processSd <= 0) continue;
    if (n->processDf > 0) {
      sessionSum += n->processSd;
      sessions.sessionDf = sessions.sessionDf > 0 ? std::min(sessions.sessionDf, static_cast<double>(n->processDf))
                                                  : static_cast<double>(n->processDf);
    } else {
      legacySum += n->processSd;
    }
  }
  const double k = static_cast<double>(runs.size());
  sessions.sessionSe = sessionSum / k;
  sessions.blockSe = legacySum / k;
  out.aggregate = aggregate(runs, table, policy, sessions);
  return out;
}

}  // namespace kopt::measure
