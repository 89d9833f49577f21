// BASELINE (= round-1): build, tests, the full bench on all target shapes measured A/A (the same
// commit in the working tree and in the best worktree, interleaved) for the per-shape noise
// calibration, representative shapes, the frozen set, the kernel snapshot (rollback root).
#include <algorithm>
#include <cmath>
#include <set>
#include <system_error>

#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/engine_support.h"
#include "campaign/lineage/git_repo.h"
#include "measure/percent_format.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace {

// Worker sessions of the BASELINE A/A: three, so a process-level variance component shows as a
// spread of the per-session means beyond what the blocks inside each session explain.
constexpr int kAaSessions = 3;

Refusal broken(const OpenCampaign& s, std::string why, std::vector<std::string> details = {}) {
  Refusal r = s.refuse(RefusalCode::BaselineBroken, std::move(why), "");
  r.details = std::move(details);
  r.details.push_back("the unmodified kernel must build, pass its tests and PASS every shape before a campaign can "
                      "start; fix the environment and call run_baseline again");
  r.toolToCall = "run_baseline (after fixing the environment)";
  return r;
}

std::vector<std::string> chooseRepresentative(const std::vector<std::string>& labels,
                                              const std::vector<ShapeRow>& rows) {
  const std::size_t n = labels.size();
  if (n <= 5) return labels;
  // Spread over the metric's range: slowest, fastest and evenly spaced ranks between them.
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& r : rows) ranked.emplace_back(r.candidate.value_or(0.0), r.label);
  std::sort(ranked.begin(), ranked.end());
  std::set<std::string> chosen;
  const std::size_t k = 5;
  for (std::size_t i = 0; i < k; ++i) chosen.insert(ranked[i * (ranked.size() - 1) / (k - 1)].second);
  std::vector<std::string> out;
  for (const auto& l : labels) {
    if (chosen.count(l)) out.push_back(l);
  }
  return out;
}

// Repository files the commands name (a test script, a bench script): frozen with the harness.
std::vector<std::string> filesNamedByCommands(const OpenCampaign& s) {
  std::set<std::string> out;
  const auto tracked = detail::listScopeFiles(s.repo, {"."});
  const std::set<std::string> trackedSet(tracked.begin(), tracked.end());
  for (const Command* c : {&s.manifest.testCommand, &s.manifest.benchmarkCommand, &s.manifest.quickCommand,
                           &s.manifest.buildCommand}) {
    if (c->empty()) continue;
    const auto parsed = expandPlaceholders(*c, s.placeholders(s.repo));
    for (const auto& word : parsed.argv) {
      fs::path p(word);
      if (!p.is_absolute()) p = s.repo / p;
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) continue;
      const fs::path rel = fs::relative(fs::weakly_canonical(p, ec), s.repo, ec);
      const std::string relText = rel.generic_string();
      if (ec || relText.empty() || util::startsWith(relText, "..")) continue;
      if (!trackedSet.count(relText)) continue;
      if (detail::inAnyScope(relText, s.manifest.kernelSource)) continue;
      out.insert(relText);
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace

Outcome<BaselineResult> CampaignEngine::runBaseline(const std::string& campaignDir, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, campaignDir, CampaignTool::RunBaseline, ctx);
  if (!opened.ok()) return errorOf<BaselineResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  lineage::GitRepo repo(s.repo);
  std::string head;
  try {
    head = repo.headCommit();
    std::vector<std::string> dirty;
    for (const auto& c : repo.changedSince(head)) {
      if (detail::inAnyScope(c.path, m.kernelSource)) dirty.push_back(c.path + " (" + lineage::toString(c.kind) + ")");
    }
    if (!dirty.empty()) {
      Refusal r = s.refuse(RefusalCode::BaselineBroken,
                           "the kernel files differ from HEAD; the baseline must be a commit so that rollbacks can "
                           "restore it exactly");
      r.details = dirty;
      r.toolToCall = "run_baseline (after committing or discarding those changes)";
      return r;
    }
  } catch (const std::exception& e) {
    return toolFailure(std::string("git: ") + e.what());
  }
  if (auto failure = detail::pythonShadowFailure(s, "run_baseline")) return *failure;
  const int ordinal = detail::measurementOrdinal(s, 1);
  const std::string tag = "r1-aa-" + std::to_string(ordinal);
  const std::string quickTag = "r1-quick-" + std::to_string(ordinal);
  s.beginStep(1, "baseline", json{{"tag", tag}, {"tags", {tag, quickTag}}});
  const RoundPaths rp = s.paths.round(1);
  rp.createLayout();
  auto executor = detail::makeExecutorFor(options_, m);
  const double total = 2.0 + 2.0 * std::max(kAaSessions * m.gate.pairs, std::max(4, m.gate.pairs + 1)) + 2.0;

  // Build and test the working tree (the baseline commit).
  if (!m.buildCommand.empty()) {
    auto r = detail::runLogged(*executor, m.buildCommand, s.placeholders(s.repo), s.repo, rp.buildLog,
                               m.timeouts.buildSeconds, m.timeouts.hangSeconds, ctx, "build", 0, total);
    if (!r.ok()) {
      s.clearStep();
      return broken(s, "the build " + detail::describe(r), {"build log tail:\n" + detail::logTail(rp.buildLog, 2000)});
    }
  }
  {
    auto r = detail::runLogged(*executor, m.testCommand, s.placeholders(s.repo), s.repo, rp.testLog,
                               m.timeouts.testSeconds, m.timeouts.hangSeconds, ctx, "tests", 1, total);
    if (!r.ok()) {
      s.clearStep();
      return broken(s, "the tests " + detail::describe(r), {"test log tail:\n" + detail::logTail(rp.testLog, 2000)});
    }
  }
  // The best worktree starts at the baseline commit.
  if (auto err = detail::ensureWorktreeBuilt(s, *executor, s.paths.bestWorktree, head, rp.artifacts / "best_build.log", ctx);
      !err.empty()) {
    s.clearStep();
    return broken(s, err);
  }
  // A/A: the same build measured interleaved against itself. With workers: kAaSessions fresh
  // worker sessions of one look each, so the harness check can compare processes; with process
  // pairs, an even number of pairs (each order equally often).
  const measure::GatePolicy policy = gatePolicyFor(m);
  MeasurementPlan plan = detail::planFor(s, true, s.paths.bestWorktree, rp.artifacts / "runs", tag);
  MeasurementRunner runner(*executor, options_.seedSource);
  std::vector<PairRun> runs;
  // kAaSessions more worker sessions (sessions are numbered by the runner, so a second call
  // continues the numbering); returns false when the user cancelled or a run was lost.
  int sessionsRun = 0;
  auto runAaSessions = [&]() {
    const int blocks = policy.blocksPerLook;
    for (int i = 0; i < kAaSessions && !ctx.cancel.cancelled(); ++i, ++sessionsRun) {
      auto more = runner.run(plan, sessionsRun * blocks, blocks, ctx, 2 + 2.0 * sessionsRun * blocks, total);
      for (auto& p : more) runs.push_back(std::move(p));
    }
    return !ctx.cancel.cancelled() && runner.lostRun().empty();
  };
  auto stopped = [&]() -> Outcome<BaselineResult> {
    detail::discardMeasurement(s, 1, tag);
    s.clearStep();
    if (!runner.lostRun().empty()) return detail::lostRunFailure("run_baseline", runner.lostRun());
    return toolFailure("run_baseline was cancelled; nothing was recorded", "", "call run_baseline again");
  };
  if (plan.workers) {
    if (!runAaSessions()) return stopped();
  } else {
    const int pairs = std::max(4, m.gate.pairs + m.gate.pairs % 2);
    runs = runner.run(plan, 0, pairs, ctx, 2, total);
  }
  s.checkpoint("baseline:after-pairs");
  if (ctx.cancel.cancelled() || !runner.lostRun().empty()) return stopped();
  detail::writeMeasurementIndex(rp.artifacts / ("measurement-" + tag + ".json"), tag, "", true, runs);
  const std::vector<std::string> wanted = m.targetShapes.all ? std::vector<std::string>{} : m.targetShapes.labels;
  // The shape set is the first run's (or the manifest's list); every other run must match it.
  std::vector<std::string> labels = wanted;
  if (labels.empty()) {
    for (const auto& p : runs) {
      if (p.candidate.table) {
        labels = p.candidate.table->labels();
        break;
      }
    }
  }
  std::string header;
  for (const auto& p : runs) {
    if (p.candidate.table) {
      header = p.candidate.table->schema.headerBytes;
      break;
    }
  }
  AssembledRuns assembled = assemble(runs, header, labels);
  auto uncleanProblems = [&]() {
    std::vector<std::string> problems = assembled.problems;
    for (const auto& [label, check] : assembled.candidateChecks) {
      if (check != measure::Check::Pass) problems.push_back(label + " is " + measure::toString(check));
    }
    if (labels.empty()) problems.push_back("the benchmark reported no shapes");
    return problems;
  };
  if (auto problems = uncleanProblems(); !problems.empty()) {
    s.clearStep();
    return broken(s, "the baseline benchmark is not clean", problems);
  }
  measure::Calibration calibration = measure::calibrateAa(assembled.runs, policy);
  // The harness check (workers): no A/A bias, blocks a valid unit across processes, and enough
  // blocks per look to see a targetMde change. A harness that cannot is refused, not trusted.
  std::optional<measure::HarnessCheck> harness;
  std::vector<std::string> unconfirmedBias;
  if (plan.workers) {
    // The check over sessions [first, sessionsRun).
    auto checkSessions = [&](int first) {
      std::vector<std::vector<measure::PairedRuns>> perSession;
      for (int session = first; session < sessionsRun; ++session) {
        std::vector<PairRun> mine;
        for (const auto& p : runs) {
          if (p.session == session) mine.push_back(p);
        }
        perSession.push_back(assemble(mine, header, labels).runs);
      }
      return measure::checkHarness(perSession, policy);
    };
    harness = checkSessions(0);
    // A bias alarm alone is confirmed on fresh sessions before the harness is refused: a real
    // order or arm effect reads again, a chance reading (familyWiseAlpha of honest harnesses)
    // almost never does twice. The verdict is the fresh sessions'; the alarm is recorded.
    if (harness->failedOnlyOnBias()) {
      unconfirmedBias = harness->problems;
      const int first = sessionsRun;
      if (!runAaSessions()) return stopped();
      detail::writeMeasurementIndex(rp.artifacts / ("measurement-" + tag + ".json"), tag, "", true, runs);
      assembled = assemble(runs, header, labels);
      if (auto problems = uncleanProblems(); !problems.empty()) {
        s.clearStep();
        return broken(s, "the baseline benchmark is not clean", problems);
      }
      harness = checkSessions(first);
    }
    if (!harness->ok) {
      s.clearStep();
      std::vector<std::string> details = harness->problems;
      if (!unconfirmedBias.empty()) details.insert(details.begin(), "the A/A read a bias, and fresh sessions read it again:");
      for (const auto& sh : harness->shapes) details.push_back(sh.message);
      return broken(s,
                    "the harness cannot support the gate: its A/A is biased, or it cannot reach a " +
                        measure::percentText(policy.targetMde) + " minimum detectable change within " + std::to_string(policy.maxBlocks) +
                        " blocks per look; fix the harness (longer batches: bench.batch_ms, a quieter "
                        "machine), or raise gate.target_mde_pct knowingly",
                    details);
    }
    // Per-session noise, and the process-means floor of the shapes whose sessions disagree.
    calibration = harness->calibration;
  }
  // The gate's own A/A check: the same build against itself should be SAME almost everywhere.
  const auto aaVerdicts =
      measure::compareShapes(assembled.runs, calibration.forSessions(plan.workers ? sessionsRun : 1), policy);
  int aaSame = 0;
  for (const auto& v : aaVerdicts) aaSame += v.verdict == measure::Verdict::Same ? 1 : 0;
  const auto rows = detail::shapeRows(assembled, runs, nullptr);

  // Representative shapes (3-5) for quick validation: the user's, else spread over the range.
  std::vector<std::string> representative = m.representativeShapes;
  for (const auto& r : representative) {
    if (std::find(labels.begin(), labels.end(), r) == labels.end()) {
      s.clearStep();
      return broken(s, "representative shape '" + r + "' is not one of the benchmark's shapes: " + util::join(labels, ", "));
    }
  }
  if (representative.empty()) representative = chooseRepresentative(labels, rows);

  // A copied quick harness learns the shapes now (its one `SHAPES = []` line), from the full
  // benchmark's own table; then it is frozen with everything else.
  if (std::error_code hec; fs::is_regular_file(s.paths.quickHarness, hec)) {
    const measure::BenchTable* table = nullptr;
    for (const auto& p : runs) {
      if (p.candidate.table) {
        table = &*p.candidate.table;
        break;
      }
    }
    std::string harness = util::readFile(s.paths.quickHarness);
    const std::string empty = "\nSHAPES = []\n";
    if (table && harness.find(empty) != std::string::npos) {
      std::string list = "\nSHAPES = [";
      for (std::size_t i = 0; i < table->rows.size(); ++i) {
        const auto& row = table->rows[i];
        auto dim = [](const std::optional<std::int64_t>& v) { return std::to_string(v.value_or(1)); };
        list += (i ? ", (" : "(") + nlohmann::json(row.label).dump() + ", " + dim(row.shape.B) + ", " + dim(row.shape.M) +
                ", " + dim(row.shape.N) + (row.shape.K ? ", " + dim(row.shape.K) : std::string()) + ")";
      }
      list += "]\n";
      util::writeFileAtomic(s.paths.quickHarness, util::replaceAll(harness, empty, list));
    }
  }
  // The quick harness must write the same frozen schema on the representative shapes.
  {
    MeasurementPlan quick = detail::planFor(s, false, s.paths.bestWorktree, rp.artifacts / "runs", quickTag);
    quick.shapes = representative;
    auto q = runner.run(quick, 0, 1, ctx, total - 2, total);
    if (ctx.cancel.cancelled() || !runner.lostRun().empty()) {
      detail::discardMeasurement(s, 1, tag);
      detail::discardMeasurement(s, 1, quickTag);
      s.clearStep();
      if (!runner.lostRun().empty()) return detail::lostRunFailure("run_baseline", runner.lostRun());
      return toolFailure("run_baseline was cancelled; nothing was recorded", "", "call run_baseline again");
    }
    AssembledRuns qa = assemble(q, header, representative);
    std::vector<std::string> problems = qa.problems;
    for (const auto& [label, check] : qa.candidateChecks) {
      if (check != measure::Check::Pass) problems.push_back("quick run: " + label + " is " + measure::toString(check));
    }
    if (!problems.empty()) {
      s.clearStep();
      return broken(s, "the quick command does not reproduce the baseline's schema and shapes", problems);
    }
    if (!q.empty()) {
      std::error_code ec;
      fs::copy_file(q.front().candidate.log, s.paths.quickBaselineLog, fs::copy_options::overwrite_existing, ec);
    }
  }

  // The manifest records the representative shapes; the new text is what is frozen.
  Manifest updated = m;
  updated.representativeShapes = representative;
  const std::string manifestText = toYaml(updated);
  util::writeFileAtomic(s.paths.manifest, manifestText);
  const std::string manifestSha = util::sha256Hex(manifestText);
  s.manifest = updated;
  s.manifestSha = manifestSha;

  FrozenSet frozen;
  frozen.addFile("manifest.yaml", s.paths.manifest, s.paths.root);
  std::error_code ec;
  if (fs::is_regular_file(s.paths.quickHarness, ec)) frozen.addFile("quick_test_bench.py", s.paths.quickHarness, s.paths.root);
  for (const auto& f : filesNamedByCommands(s)) frozen.addFile(f, f, s.repo);
  // Every other tracked file outside the kernel sources too (the harness sources a build compiles,
  // not only the scripts the commands name), as one hash; the per-file list beside the records
  // only names what changed when that hash no longer matches.
  {
    const auto nonKernel = detail::nonKernelFileHashes(s);
    frozen.addText(detail::kFrozenNonKernelFiles, detail::nonKernelFingerprint(nonKernel));
    util::writeFileAtomic(s.paths.root / "frozen-files.json", json(nonKernel).dump(1) + "\n");
  }
  frozen.addText("schema header", header);
  frozen.addText("shape list", util::join(labels, ","));
  frozen.addText("representative shapes", util::join(representative, ","));
  frozen.addText("test_command", m.testCommand.text);
  frozen.addText("benchmark_command", m.benchmarkCommand.text);
  frozen.addText("quick_command", m.quickCommand.text);
  frozen.addText("build_command", m.buildCommand.text);

  // The kernel as it is now is the rollback root.
  try {
    repo.snapshotFiles(m.kernelSource, rp.kernelSnapshot);
  } catch (const std::exception& e) {
    s.clearStep();
    return toolFailure(std::string("cannot snapshot the kernel: ") + e.what());
  }
  detail::publishBenchmarkCsv(runs, rp);

  records::RoundRecord record = detail::measuredRecord(s, 1, runs, assembled, nullptr, true);
  record.status = records::RoundStatus::Baseline;
  record.description = "baseline";
  record.decisionReason = "BASELINE: unmodified kernel at " + head.substr(0, 12) + "; A/A calibration over " +
                          std::to_string(assembled.usablePairs) + " interleaved pairs";
  record.keyFinding = "baseline";
  record.commit = head;
  record.lineageHead = head;
  record.aggregate.baselineValue = record.aggregate.value;
  record.aggregate.bestValue = record.aggregate.value;

  BaselineRecorded recorded;
  recorded.commit = head;
  recorded.record = record;
  recorded.frozen = frozen;
  recorded.calibration = calibration.shapes;
  recorded.representativeShapes = representative;
  recorded.labels = labels;
  recorded.schemaHeader = header;
  recorded.metric = measureMetric(m).name();
  recorded.manifestSha256 = manifestSha;
  recorded.pairs = assembled.usablePairs;
  recorded.aaSame = aaSame;
  if (harness) recorded.harness = detail::harnessToJson(*harness);
  recorded.aaBiasAlarm = unconfirmedBias;
  recorded.aaShapes = static_cast<long long>(aaVerdicts.size());
  recorded.measurement = tag;
  s.record(recorded, 1);

  BaselineResult result;
  result.commit = head;
  result.shapes = rows;
  for (auto& row : result.shapes) {
    if (const auto* n = calibration.find(row.label)) row.deltaPct = 100.0 * n->delta;
    row.verdict = "BASELINE";
  }
  result.aggregate = detail::aggregateRow(s, result.shapes, nullptr);
  result.representativeShapes = representative;
  for (const auto& e : frozen.entries()) result.frozen.push_back(e.name);
  result.pairs = assembled.usablePairs;
  result.aaSameShapes = aaSame;
  result.aaShapes = static_cast<int>(aaVerdicts.size());
  result.marginPct = 100.0 * policy.margin;
  if (harness) {
    result.blocksPerLook = harness->blocksPerLook;
    for (const auto& sh : harness->shapes) result.harness.push_back(sh.message);
    for (const auto& alarm : unconfirmedBias)
      result.harness.push_back("not confirmed by " + std::to_string(kAaSessions) + " fresh sessions (their check above decided): " + alarm);
  }
  result.benchmarkCsv = rp.benchmarkCsv.string();
  result.summaryPath = rp.summary.string();
  result.phase = s.state.phase;
  return result;
}

}  // namespace kopt::campaign
