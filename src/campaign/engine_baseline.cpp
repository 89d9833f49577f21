// BASELINE (= round-1): build, tests, the full bench on all target shapes measured A/A (the same
// commit in the working tree and in the best worktree, interleaved) for the per-shape noise
// calibration, representative shapes, the frozen set, the kernel snapshot (rollback root).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <system_error>

#include "campaign/baseline_shapes.h"
#include "campaign/candidate_tree.h"
#include "campaign/command_outcome.h"
#include "campaign/command_run.h"
#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/interleaved_runner.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/measured_record.h"
#include "campaign/measurement_setup.h"
#include "campaign/result_rows.h"
#include "campaign/spare_workers.h"
#include "campaign/worktree_build.h"
#include "measure/percent_format.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace {

Refusal broken(const OpenCampaign& s, std::string why, std::vector<std::string> details = {}) {
  Refusal r = s.refuse(RefusalCode::BaselineBroken, std::move(why), "");
  r.details = std::move(details);
  r.details.push_back("the unmodified kernel must build, pass its tests and PASS every shape before a campaign can "
                      "start; fix the environment and call run_baseline again");
  r.toolToCall = "run_baseline (after fixing the environment)";
  return r;
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


// One run_baseline call: its steps in order, sharing what the earlier ones measured. A step that
// ends the call returns why; every step after beginStep() clears the pending step when it does.
class BaselineRun {
 public:
  BaselineRun(OpenCampaign& s, const EngineOptions& options, const CallContext& ctx)
      : s_(s), m_(s.manifest), options_(options), ctx_(ctx), repo_(s.repo) {}
  // No worker started ahead for a session outlives the call, whichever way it ends.
  ~BaselineRun() {
    if (sparesOfferedUntil_ > 0) SpareWorkers::shared().clear();
  }
  BaselineRun(const BaselineRun&) = delete;
  BaselineRun& operator=(const BaselineRun&) = delete;

  std::optional<Stop> checkCommitted();
  void beginStep();
  std::optional<Stop> buildAndTest();
  std::optional<Stop> measureAa();
  std::optional<Stop> checkHarness();
  std::optional<Stop> chooseRepresentative();
  std::optional<Stop> checkQuickHarness();
  std::optional<Stop> freezeAndSnapshot();
  BaselineResult record();

 private:
  Refusal stopBroken(std::string why, std::vector<std::string> details = {}) {
    s_.clearStep();
    return broken(s_, std::move(why), std::move(details));
  }
  Stop stopMeasuring(std::initializer_list<const std::string*> tags);
  // A build or test run that judged nothing (cancelled, lost): not a broken baseline.
  Stop stopUnjudged(ToolFailure failure) {
    s_.clearStep();
    return failure;
  }
  bool startsAaSpares() const;
  void offerAaSpares();
  bool runAaSessions(int count = 0);  // 0: gate.aa_sessions
  std::vector<std::string> planCostLines(const measure::HarnessCheck& check) const;
  std::optional<Stop> recheckFrom(int first);
  std::optional<Stop> extendUntilDecidable(int first);
  measure::HarnessCheck checkSessions(int first) const;
  void assembleRuns();
  bool teachQuickHarness();
  void recordRepresentativeInManifest();
  FrozenSet frozenSet() const;

  OpenCampaign& s_;
  const Manifest& m_;
  const EngineOptions& options_;
  const CallContext& ctx_;
  lineage::GitRepo repo_;
  std::string head_;
  std::string tag_, quickTag_;
  RoundPaths rp_;
  std::unique_ptr<exec::Executor> executor_;
  double total_ = 0;
  measure::GatePolicy policy_;
  MeasurementPlan plan_;
  std::unique_ptr<MeasurementRunner> runner_;
  std::vector<PairRun> runs_;
  int sessionsRun_ = 0;
  double aaSeconds_ = 0;          // the A/A's wall time so far, every session of it
  double secondsPerSession_ = 0;  // its mean per worker session (the plan's price)
  int extendedFrom_ = 0;          // > 0: the A/A was extended past this many sessions to decide a shape
  int confirmSessions_ = 0;       // the fresh sessions a bias alarm was confirmed on
  int sparesOfferedUntil_ = 0;  // the sessions before this one have workers started ahead (or had)
  std::vector<std::string> labels_;
  std::string header_;
  AssembledRuns assembled_;
  measure::Calibration calibration_;
  std::optional<measure::HarnessCheck> harness_;
  std::vector<std::string> unconfirmedBias_;
  std::vector<measure::ShapeVerdict> aaVerdicts_;
  int aaSame_ = 0;
  std::vector<ShapeRow> rows_;
  std::vector<std::string> representative_;
  std::string manifestSha_;
  FrozenSet frozen_;
};

// The baseline must be a commit, so that a rollback can restore it exactly.
std::optional<Stop> BaselineRun::checkCommitted() {
  try {
    head_ = repo_.headCommit();
    std::vector<std::string> dirty;
    for (const auto& c : repo_.changedSince(head_)) {
      if (detail::inAnyScope(c.path, m_.kernelSource)) dirty.push_back(c.path + " (" + lineage::toString(c.kind) + ")");
    }
    if (dirty.empty()) return std::nullopt;
    Refusal r = s_.refuse(RefusalCode::BaselineBroken,
                          "the kernel files differ from HEAD; the baseline must be a commit so that rollbacks can "
                          "restore it exactly");
    r.details = dirty;
    r.toolToCall = "run_baseline (after committing or discarding those changes)";
    return r;
  } catch (const std::exception& e) {
    return toolFailure(std::string("git: ") + e.what());
  }
}

void BaselineRun::beginStep() {
  const int ordinal = detail::measurementOrdinal(s_, 1);
  tag_ = "r1-aa-" + std::to_string(ordinal);
  quickTag_ = "r1-quick-" + std::to_string(ordinal);
  s_.beginStep(1, "baseline", PendingMeasurement{tag_, {tag_, quickTag_}, ""});
  rp_ = s_.paths.round(1);
  rp_.createLayout();
  executor_ = detail::makeExecutorFor(options_, m_);
  policy_ = gatePolicyFor(m_);
  total_ = 2.0 + 2.0 * std::max(policy_.aaSessions * m_.gate.pairs, std::max(4, m_.gate.pairs + 1)) + 2.0;
  runner_ = std::make_unique<MeasurementRunner>(*executor_, options_.seedSource);
}

// Build the working tree (the baseline commit) and the best worktree at the same commit, start the
// A/A's workers ahead, then test the working tree.
std::optional<Stop> BaselineRun::buildAndTest() {
  if (!m_.buildCommand.empty()) {
    auto r = detail::runLogged(*executor_, m_.buildCommand, s_.placeholders(s_.repo), s_.repo, rp_.buildLog,
                               m_.timeouts.buildSeconds, m_.timeouts.hangSeconds, ctx_, "build", 0, total_);
    if (auto failure = detail::unjudgedRunFailure(r, "run_baseline")) return stopUnjudged(*failure);
    if (!r.ok()) {
      return stopBroken("the build " + detail::describe(r), {"build log tail:\n" + detail::logTail(rp_.buildLog, 2000)});
    }
  }
  detail::TreeBuild best =
      detail::ensureWorktreeBuilt(s_, *executor_, s_.paths.bestWorktree, head_, rp_.artifacts / "best_build.log",
                                  "run_baseline", ctx_);
  if (best.unjudged) return stopUnjudged(*best.unjudged);
  if (!best.error.empty()) return stopBroken(best.error);
  // Both trees are built: the plan names their builds, and the A/A's workers start up while the
  // tests run.
  plan_ = detail::planFor(s_, true, s_.paths.bestWorktree, rp_.artifacts / "runs", tag_);
  detail::identifyBest(s_, plan_, head_);
  // Every A/A session's workers live at once: each worker sizes its memory to its share of them.
  plan_.workersOnDevice = detail::workersOnDevice(startsAaSpares(), policy_.aaSessions);
  offerAaSpares();
  auto r = detail::runLogged(*executor_, m_.testCommand, s_.placeholders(s_.repo), s_.repo, rp_.testLog,
                             m_.timeouts.testSeconds, m_.timeouts.hangSeconds, ctx_, "tests", 1, total_);
  if (auto failure = detail::unjudgedRunFailure(r, "run_baseline")) return stopUnjudged(*failure);
  if (!r.ok()) {
    return stopBroken("the tests " + detail::describe(r), {"test log tail:\n" + detail::logTail(rp_.testLog, 2000)});
  }
  return std::nullopt;
}

// The call was cancelled or the infrastructure lost a run: nothing is recorded.
Stop BaselineRun::stopMeasuring(std::initializer_list<const std::string*> tags) {
  for (const std::string* tag : tags) detail::discardMeasurement(s_, 1, *tag);
  s_.clearStep();
  if (!runner_->lostRun().empty()) return detail::lostRunFailure("run_baseline", runner_->lostRun());
  return toolFailure("run_baseline was cancelled; nothing was recorded", "", "call run_baseline again");
}

// Both workers of each of the next aaSessions sessions, started at once and each kept for its
// session's look (spare_workers.h): a worker's start-up (interpreter, torch, Triton: 4-6 s on an
// H100) then overlaps the tests or the other sessions' start-ups instead of opening each session
// (a third of a session's time in the eighteenth session). Only where validate_round's workers
// are started ahead too: a long-lived server, one device, the worker protocol.
bool BaselineRun::startsAaSpares() const {
  return options_.startWorkersAhead && plan_.workers && m_.executor.devices.size() <= 1;
}

void BaselineRun::offerAaSpares() {
  if (!startsAaSpares()) return;
  if (sparesOfferedUntil_ > sessionsRun_) return;  // these sessions' workers are started already
  std::error_code ec;
  fs::create_directories(plan_.runsDir, ec);
  for (int session = sessionsRun_; session < sessionsRun_ + policy_.aaSessions; ++session) {
    const std::string look = sessionStem(plan_.tag, session);
    for (bool candidate : {true, false}) {
      const std::string& build = armBuild(plan_, candidate);
      if (build.empty()) continue;
      const std::string arm = armName(candidate);
      std::string error;  // a spare that does not start: its session starts its own worker
      SpareWorkers::shared().offer(arm, armWorkerSpec(plan_, candidate, plan_.runsDir / ("ahead-" + look + "-" + arm + ".log")),
                                   build, error, look);
    }
  }
  sparesOfferedUntil_ = sessionsRun_ + policy_.aaSessions;
}

// gate.aa_sessions more worker sessions (or `count`): at least three, so a process-level variance
// component shows as a spread of the per-session means beyond what the blocks inside each session
// explain; more narrow the intervals of shapes whose sessions disagree (docs/statistics.md). The
// runner numbers them, so a second call continues the numbering. False when the user cancelled or
// a run was lost.
bool BaselineRun::runAaSessions(int count) {
  offerAaSpares();
  const int blocks = policy_.blocksPerLook;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < (count > 0 ? count : policy_.aaSessions) && !ctx_.cancel.cancelled(); ++i, ++sessionsRun_) {
    auto more = runner_->run(plan_, sessionsRun_ * blocks, blocks, ctx_, 2 + 2.0 * sessionsRun_ * blocks, total_);
    for (auto& p : more) runs_.push_back(std::move(p));
  }
  aaSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (sessionsRun_ > 0) secondsPerSession_ = aaSeconds_ / static_cast<double>(sessionsRun_);
  return !ctx_.cancel.cancelled() && runner_->lostRun().empty();
}

// The harness check again over sessions [first, sessionsRun_), after more were run.
std::optional<Stop> BaselineRun::recheckFrom(int first) {
  assembleRuns();
  if (auto problems = baselineProblems(assembled_, labels_); !problems.empty()) {
    return stopBroken("the baseline benchmark is not clean", problems);
  }
  harness_ = checkSessions(first);
  return std::nullopt;
}

// A shape that more sessions would make decidable gets them, up to maxAaSessions in the set
// that decides: the baseline is paid once, and an undecidable plan would make every round
// unacceptable. Each check may ask again (the sessions' sd is re-estimated from more of them).
std::optional<Stop> BaselineRun::extendUntilDecidable(int first) {
  for (;;) {
    const int have = sessionsRun_ - first;
    const int need = std::min(harness_->sessionsToDecide(), policy_.maxAaSessions);
    if (need <= have) return std::nullopt;
    if (!extendedFrom_) extendedFrom_ = have;
    if (!runAaSessions(need - have)) return stopMeasuring({&tag_});
    if (auto stop = recheckFrom(first)) return stop;
  }
}

// What the plan costs, from the A/A's own sessions: a look is one pair of worker sessions like
// an A/A session, with the plan's blocks instead of gate.pairs. Said before round 2, so a user
// sees the price of a round (and of a fix) before paying it.
std::vector<std::string> BaselineRun::planCostLines(const measure::HarnessCheck& check) const {
  if (secondsPerSession_ <= 0) return {};
  const double perLook =
      secondsPerSession_ * static_cast<double>(check.blocksPerLook) / static_cast<double>(std::max(1, policy_.blocksPerLook));
  auto seconds = [](double s) { return std::to_string(static_cast<long long>(std::ceil(s))) + " s"; };
  const bool decidable = std::all_of(check.shapes.begin(), check.shapes.end(),
                                     [](const measure::ShapeHarness& sh) { return sh.decidable; });
  std::vector<std::string> lines;
  lines.push_back("expected validate_round: about " + seconds(perLook) + " a look of " +
                  std::to_string(check.blocksPerLook) + " blocks (an A/A worker session took " +
                  seconds(secondsPerSession_) + "); " +
                  (decidable ? "a neutral round on unchanged shapes takes " + std::to_string(std::max(1, check.looksNeeded)) +
                                   " look(s), about " + seconds(perLook * std::max(1, check.looksNeeded)) + ", "
                             : std::string()) +
                  "at most " + std::to_string(policy_.maxLooks) + " (" + seconds(perLook * policy_.maxLooks) +
                  "), plus the build and the tests");
  for (const auto& sh : check.shapes) {
    if (sh.decidable || sh.processes < 2) continue;
    if (sh.sessionsToDecide)
      lines.push_back(sh.label + ": gate.aa_sessions " + std::to_string(sh.sessionsToDecide) + " costs the BASELINE about " +
                      seconds(secondsPerSession_ * (sh.sessionsToDecide - policy_.aaSessions)) + " more");
    if (sh.looksToDecide)
      lines.push_back(sh.label + ": gate.max_looks " + std::to_string(sh.looksToDecide) + " lets a round take up to " +
                      seconds(perLook * sh.looksToDecide) + " of looks");
  }
  return lines;
}

void BaselineRun::assembleRuns() {
  detail::writeMeasurementIndex(rp_.artifacts / ("measurement-" + tag_ + ".json"), tag_, "", true, runs_);
  assembled_ = assemble(runs_, header_, labels_);
}

// A/A: the same build measured interleaved against itself. With workers: aaSessions fresh worker
// sessions of one look each, so the harness check can compare processes; with process pairs, an
// even number of pairs (each order equally often).
std::optional<Stop> BaselineRun::measureAa() {
  if (plan_.workers) {
    if (!runAaSessions()) return stopMeasuring({&tag_});
  } else {
    const int pairs = std::max(4, m_.gate.pairs + m_.gate.pairs % 2);
    runs_ = runner_->run(plan_, 0, pairs, ctx_, 2, total_);
  }
  s_.checkpoint("baseline:after-pairs");
  if (ctx_.cancel.cancelled() || !runner_->lostRun().empty()) return stopMeasuring({&tag_});
  // The shape set is the manifest's or the first run's; every other run must match it.
  labels_ = baselineShapeSet(runs_, m_.targetShapes);
  if (const auto* table = firstCandidateTable(runs_)) header_ = table->schema.headerBytes;
  assembleRuns();
  if (auto problems = baselineProblems(assembled_, labels_); !problems.empty()) {
    return stopBroken("the baseline benchmark is not clean", problems);
  }
  calibration_ = measure::calibrateAa(assembled_.runs, policy_);
  return std::nullopt;
}

// The harness check over worker sessions [first, sessionsRun_).
measure::HarnessCheck BaselineRun::checkSessions(int first) const {
  std::vector<std::vector<measure::PairedRuns>> perSession;
  for (int session = first; session < sessionsRun_; ++session) {
    std::vector<PairRun> mine;
    for (const auto& p : runs_) {
      if (p.session == session) mine.push_back(p);
    }
    perSession.push_back(assemble(mine, header_, labels_).runs);
  }
  return measure::checkHarness(perSession, policy_);
}

// With workers: no A/A bias, blocks a valid unit across processes, and enough blocks per look to
// see a targetMde change. A harness that cannot is refused, not trusted. Then the gate's own A/A
// verdicts: the same build against itself should be SAME almost everywhere.
std::optional<Stop> BaselineRun::checkHarness() {
  if (plan_.workers) {
    harness_ = checkSessions(0);
    if (auto stop = extendUntilDecidable(0)) return stop;
    // A bias alarm alone is confirmed on fresh sessions before the harness is refused: a real
    // order or arm effect reads again, a chance reading (familyWiseAlpha of honest harnesses)
    // almost never does twice. The verdict is the fresh sessions' (as many as the alarm's set);
    // the alarm is recorded.
    if (harness_->failedOnlyOnBias()) {
      unconfirmedBias_ = harness_->problems;
      const int first = sessionsRun_;
      confirmSessions_ = sessionsRun_;
      if (!runAaSessions(sessionsRun_)) return stopMeasuring({&tag_});
      if (auto stop = recheckFrom(first)) return stop;
      if (auto stop = extendUntilDecidable(first)) return stop;
    }
    if (!harness_->ok) {
      std::vector<std::string> details = harness_->problems;
      if (!unconfirmedBias_.empty()) details.insert(details.begin(), "the A/A read a bias, and fresh sessions read it again:");
      for (const auto& sh : harness_->shapes) details.push_back(sh.message);
      for (auto& line : planCostLines(*harness_)) details.push_back(std::move(line));
      return stopBroken("the harness cannot support the gate: its A/A is biased, or a shape cannot be shown within "
                        "the regression tolerance " +
                            measure::percentText(policy_.regressionTolerance) + " in " + std::to_string(policy_.maxLooks) +
                            " looks, so no round could be accepted; each problem line names the fix (a gate key and "
                            "its value), or fix the harness (longer batches: bench.batch_ms, a quieter machine)",
                        details);
    }
    // Per-session noise, and the process-means floor of the shapes whose sessions disagree.
    calibration_ = harness_->calibration;
  }
  aaVerdicts_ = measure::compareShapes(assembled_.runs, calibration_.forSessions(plan_.workers ? sessionsRun_ : 1), policy_);
  for (const auto& v : aaVerdicts_) aaSame_ += v.verdict == measure::Verdict::Same ? 1 : 0;
  rows_ = detail::shapeRows(assembled_, runs_, nullptr);
  return std::nullopt;
}

// Representative shapes (3-5) for quick validation: the user's, else spread over the range.
std::optional<Stop> BaselineRun::chooseRepresentative() {
  auto chosen = representativeShapes(m_.representativeShapes, labels_, rows_);
  if (auto* error = std::get_if<std::string>(&chosen)) return stopBroken(*error);
  representative_ = std::get<std::vector<std::string>>(std::move(chosen));
  return std::nullopt;
}

// A copied quick harness learns the shapes now (its one `SHAPES = []` line), from the full
// benchmark's own table; then it is frozen with everything else. True when the file changed.
bool BaselineRun::teachQuickHarness() {
  std::error_code ec;
  if (!fs::is_regular_file(s_.paths.quickHarness, ec)) return false;
  const measure::BenchTable* table = firstCandidateTable(runs_);
  if (!table) return false;
  const std::string harness = util::readFile(s_.paths.quickHarness);
  const std::string taught = withQuickHarnessShapes(harness, *table);
  if (taught == harness) return false;
  util::writeFileAtomic(s_.paths.quickHarness, taught);
  return true;
}

// The quick harness must write the same frozen schema on the representative shapes. Not run where
// the quick command is the benchmark's own and no file it could read changed since the A/A: those
// sessions already ran that very command, on the same trees, over every shape (the representative
// ones included), and its check would only start one more pair of workers (11-12 s of an H100
// RMSNorm baseline, 4.5-5.6 s of it start-up: docs/performance.md, twentieth session). Every
// shipped manifest's quick command is its benchmark command.
std::optional<Stop> BaselineRun::checkQuickHarness() {
  const bool taught = teachQuickHarness();
  if (!taught && m_.quickCommand.text == m_.benchmarkCommand.text && !runs_.empty()) {
    std::error_code ec;
    fs::copy_file(runs_.front().candidate.log, s_.paths.quickBaselineLog, fs::copy_options::overwrite_existing, ec);
    return std::nullopt;
  }
  MeasurementPlan quick = detail::planFor(s_, false, s_.paths.bestWorktree, rp_.artifacts / "runs", quickTag_);
  quick.shapes = representative_;
  auto q = runner_->run(quick, 0, 1, ctx_, total_ - 2, total_);
  if (ctx_.cancel.cancelled() || !runner_->lostRun().empty()) return stopMeasuring({&tag_, &quickTag_});
  AssembledRuns qa = assemble(q, header_, representative_);
  std::vector<std::string> problems = qa.problems;
  for (const auto& [label, check] : qa.candidateChecks) {
    if (check != measure::Check::Pass) problems.push_back("quick run: " + label + " is " + measure::toString(check));
  }
  if (!problems.empty()) return stopBroken("the quick command does not reproduce the baseline's schema and shapes", problems);
  if (!q.empty()) {
    std::error_code ec;
    fs::copy_file(q.front().candidate.log, s_.paths.quickBaselineLog, fs::copy_options::overwrite_existing, ec);
  }
  return std::nullopt;
}

// The manifest records the representative shapes; the new text is what is frozen.
void BaselineRun::recordRepresentativeInManifest() {
  Manifest updated = m_;
  updated.representativeShapes = representative_;
  const std::string manifestText = toYaml(updated);
  util::writeFileAtomic(s_.paths.manifest, manifestText);
  manifestSha_ = util::sha256Hex(manifestText);
  s_.manifest = updated;
  s_.manifestSha = manifestSha_;
}

FrozenSet BaselineRun::frozenSet() const {
  FrozenSet frozen;
  frozen.addFile("manifest.yaml", s_.paths.manifest, s_.paths.root);
  std::error_code ec;
  if (fs::is_regular_file(s_.paths.quickHarness, ec)) frozen.addFile("quick_test_bench.py", s_.paths.quickHarness, s_.paths.root);
  for (const auto& f : filesNamedByCommands(s_)) frozen.addFile(f, f, s_.repo);
  // Every other tracked file outside the kernel sources too (the harness sources a build compiles,
  // not only the scripts the commands name), as one hash; the per-file list beside the records
  // only names what changed when that hash no longer matches.
  const auto nonKernel = detail::nonKernelFileHashes(s_);
  frozen.addText(detail::kFrozenNonKernelFiles, detail::nonKernelFingerprint(nonKernel));
  util::writeFileAtomic(s_.paths.root / "frozen-files.json", json(nonKernel).dump(1) + "\n");
  frozen.addText("schema header", header_);
  frozen.addText("shape list", util::join(labels_, ","));
  frozen.addText("representative shapes", util::join(representative_, ","));
  frozen.addText("test_command", m_.testCommand.text);
  frozen.addText("benchmark_command", m_.benchmarkCommand.text);
  frozen.addText("quick_command", m_.quickCommand.text);
  frozen.addText("build_command", m_.buildCommand.text);
  return frozen;
}

// The manifest and harness frozen; the kernel as it is now is the rollback root.
std::optional<Stop> BaselineRun::freezeAndSnapshot() {
  recordRepresentativeInManifest();
  frozen_ = frozenSet();
  try {
    repo_.snapshotFiles(m_.kernelSource, rp_.kernelSnapshot);
  } catch (const std::exception& e) {
    s_.clearStep();
    return toolFailure(std::string("cannot snapshot the kernel: ") + e.what());
  }
  detail::publishBenchmarkCsv(runs_, rp_);
  return std::nullopt;
}

// The baseline's record, its ledger line and the call's result.
BaselineResult BaselineRun::record() {
  records::RoundRecord record = detail::measuredRecord(s_, 1, runs_, assembled_, nullptr, true);
  record.status = records::RoundStatus::Baseline;
  record.description = "baseline";
  record.decisionReason = "BASELINE: unmodified kernel at " + head_.substr(0, 12) + "; A/A calibration over " +
                          std::to_string(assembled_.usablePairs) + " interleaved pairs";
  record.keyFinding = "baseline";
  record.commit = head_;
  record.lineageHead = head_;
  record.aggregate.baselineValue = record.aggregate.value;
  record.aggregate.bestValue = record.aggregate.value;

  BaselineRecorded recorded;
  recorded.commit = head_;
  recorded.record = record;
  recorded.frozen = frozen_;
  recorded.calibration = calibration_.shapes;
  recorded.representativeShapes = representative_;
  recorded.labels = labels_;
  recorded.schemaHeader = header_;
  recorded.metric = measureMetric(m_).name();
  recorded.manifestSha256 = manifestSha_;
  recorded.pairs = assembled_.usablePairs;
  recorded.aaSame = aaSame_;
  if (harness_) recorded.harness = detail::harnessToJson(*harness_);
  recorded.aaBiasAlarm = unconfirmedBias_;
  recorded.aaShapes = static_cast<long long>(aaVerdicts_.size());
  recorded.measurement = tag_;
  s_.record(recorded, 1);

  BaselineResult result;
  result.commit = head_;
  result.shapes = rows_;
  for (auto& row : result.shapes) {
    if (const auto* n = calibration_.find(row.label)) {
      row.deltaPct = 100.0 * n->delta;
      if (n->tolerance > 0) row.tolerancePct = 100.0 * n->tolerance;
    }
    row.verdict = "BASELINE";
  }
  result.aggregate = detail::aggregateRow(s_, result.shapes, nullptr);
  result.representativeShapes = representative_;
  for (const auto& e : frozen_.entries()) result.frozen.push_back(e.name);
  result.pairs = assembled_.usablePairs;
  result.aaSameShapes = aaSame_;
  result.aaShapes = static_cast<int>(aaVerdicts_.size());
  result.marginPct = 100.0 * policy_.margin;
  if (harness_) {
    result.blocksPerLook = harness_->blocksPerLook;
    result.aaSessions = sessionsRun_;
    for (const auto& sh : harness_->shapes) result.harness.push_back(sh.message);
    if (extendedFrom_ > 0)
      result.harness.push_back("the A/A ran " + std::to_string(sessionsRun_) + " worker sessions, not " +
                               std::to_string(extendedFrom_) +
                               ": with fewer, a shape could not be shown within the regression tolerance in " +
                               std::to_string(policy_.maxLooks) + " looks (set gate.aa_sessions to skip the first check)");
    for (auto& line : planCostLines(*harness_)) result.harness.push_back(std::move(line));
    for (const auto& alarm : unconfirmedBias_)
      result.harness.push_back("not confirmed by " + std::to_string(confirmSessions_) +
                               " fresh sessions (their check above decided): " + alarm);
  }
  result.benchmarkCsv = rp_.benchmarkCsv.string();
  result.summaryPath = rp_.summary.string();
  result.phase = s_.state.phase;
  return result;
}

}  // namespace

Outcome<BaselineResult> CampaignEngine::runBaseline(const std::string& campaignDir, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, campaignDir, CampaignTool::RunBaseline, ctx);
  if (!opened.ok()) return errorOf<BaselineResult>(opened);
  OpenCampaign& s = *opened.value();
  BaselineRun run(s, options_, ctx);
  if (auto stop = run.checkCommitted()) return outcomeOf<BaselineResult>(std::move(*stop));
  if (auto failure = detail::pythonShadowFailure(s, "run_baseline")) return *failure;
  run.beginStep();
  using Step = std::optional<Stop> (BaselineRun::*)();
  for (Step step : {&BaselineRun::buildAndTest, &BaselineRun::measureAa, &BaselineRun::checkHarness,
                    &BaselineRun::chooseRepresentative, &BaselineRun::checkQuickHarness,
                    &BaselineRun::freezeAndSnapshot}) {
    if (auto stop = (run.*step)()) return outcomeOf<BaselineResult>(std::move(*stop));
  }
  return run.record();
}

}  // namespace kopt::campaign
