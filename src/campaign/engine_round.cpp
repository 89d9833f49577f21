// A round's first steps: begin_round (the one hypothesis, declared before any number of the round
// exists), rebuild_kernel, run_tests, run_quick_bench. Re-running any of them inside the open
// round is allowed (a correctness fix keeps the round's number); each run is in the ledger.
#include <algorithm>
#include <cmath>
#include <system_error>

#include "campaign/bench_preview.h"
#include "campaign/candidate_tree.h"
#include "campaign/command_outcome.h"
#include "campaign/command_run.h"
#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/loop_policy.h"
#include "campaign/measurement_setup.h"
#include "campaign/path_guard.h"
#include "campaign/records/round_json.h"
#include "campaign/result_rows.h"
#include "campaign/spare_workers.h"
#include "campaign/workers_ahead.h"
#include "campaign/worktree_build.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace detail {

TreeBuild ensureCandidateBuilt(OpenCampaign& s, exec::Executor& executor, const std::string& fingerprint,
                                    const std::string& tool, const CallContext& ctx, double progressAt,
                                    std::optional<double> progressTotal) {
  const int round = s.state.openRound ? s.state.openRound->number : 0;
  if (s.manifest.buildCommand.empty()) return {};
  const RoundProgress* progress = s.rounds.round(round);
  if (const BuildFinished* last = progress ? progress->lastBuild : nullptr) {
    // Reused only while the tree, build outputs included, is what that build left (a binary
    // copied in after rebuild_kernel: docs/integrity.md, referee hole 2); a record without
    // "content" predates it.
    const std::string content = last->content.value_or("");
    if (last->ok && last->fingerprint == fingerprint && (content.empty() || content == candidateContentFingerprint(s))) {
      return {};
    }
  }
  const RoundPaths rp = s.paths.round(round);
  s.beginStep(round, "build");
  exec::RunResult r = runLogged(executor, s.manifest.buildCommand, s.placeholders(s.repo), s.repo, rp.buildLog,
                                s.manifest.timeouts.buildSeconds, s.manifest.timeouts.hangSeconds, ctx, "build",
                                progressAt, progressTotal);
  if (auto failure = unjudgedRunFailure(r, tool)) {
    s.clearStep();
    return {failure, ""};
  }
  BuildFinished built = buildFinished(r, fingerprint);
  built.automatic = true;
  if (r.ok()) built.content = candidateContentFingerprint(s);
  s.record(built, round);
  if (r.ok()) return {};
  return {std::nullopt, "the build " + describe(r) + "; log tail:\n" + logTail(rp.buildLog, 2000)};
}

}  // namespace detail

namespace {

Refusal invalid(const OpenCampaign& s, std::string why, std::string field) {
  Refusal r = s.refuse(RefusalCode::InvalidHypothesis, std::move(why), "begin_round (with the hypothesis fixed)");
  r.field = std::move(field);
  return r;
}

}  // namespace

namespace {

// The loop's rules before a new attempt: a stagnation review after a run of rollbacks, no round
// after a decision to stop, no more than max_iterations.
std::optional<Refusal> loopAllowsRound(const OpenCampaign& s) {
  const TerminationChecked* term = s.rounds.terminationSinceLastRound();
  if (loopPolicy().needsStagnationReview(s.state.consecutiveRollbacks) && !(term && term->stagnationReview)) {
    return s.refuse(RefusalCode::StagnationReview,
                    std::to_string(s.state.consecutiveRollbacks) +
                        " rounds in a row were rolled back: the loop requires a stagnation review (" +
                        loopPolicy().reviewRule() + ") before the next attempt",
                    "termination_check (with `directions`)");
  }
  if (term && term->stop) {
    return s.refuse(RefusalCode::MaxIterations, "the last termination_check decided to stop (" + term->decision + ")",
                    "final_acceptance");
  }
  const auto& maxIterations = s.manifest.maxIterations;
  if (maxIterations && s.state.lastRound - 1 >= *maxIterations) {
    return s.refuse(RefusalCode::MaxIterations,
                    "max_iterations (" + std::to_string(*maxIterations) + ") optimization rounds were already run (T3)",
                    "termination_check, then final_acceptance");
  }
  return std::nullopt;
}

// One hypothesis, stated whole: a statement, the one change, an allowed Rule-11 bucket, a
// positive expected size, at least one file.
std::optional<Refusal> checkHypothesis(const OpenCampaign& s, records::Hypothesis& h) {
  h.statement = util::trim(h.statement);
  h.change = util::trim(h.change);
  if (h.statement.empty()) return invalid(s, "the hypothesis needs a statement: \"I expect X to improve because Y\"", "statement");
  if (h.change.empty()) return invalid(s, "the hypothesis needs the one change it makes", "change");
  if (!records::isAllowed(h.bucket)) {
    return invalid(s,
                   std::string("rule-11 bucket ") + records::toString(h.bucket) + " (" + records::describe(h.bucket) +
                       ") is forbidden: caches keyed on activation/grad identity and generic memoization do not "
                       "transfer to a real training step",
                   "rule11_bucket");
  }
  if (!(h.expected.sizePct > 0) || !std::isfinite(h.expected.sizePct)) {
    return invalid(s, "expected_size_pct must be a positive number (the effect you predict, in percent)", "expected_size_pct");
  }
  if (h.expected.metric.empty()) h.expected.metric = measureMetric(s.manifest).name();
  if (h.files.empty()) return invalid(s, "declare the files the change will touch (at least one)", "files");
  return std::nullopt;
}

// files[i] inside the repository, not kopt's or git's data, inside the kernel sources, not frozen;
// its repository-relative path, or the refusal naming the argument.
std::variant<std::string, Refusal> declaredFile(const OpenCampaign& s, const std::string& file, const std::string& arg,
                                                const std::vector<std::string>& frozenRel) {
  auto rel = relativeInside(s.repo, file, arg, PathGuardOptions{false, false, "the repository"});
  if (auto* refusal = std::get_if<PathRefusal>(&rel)) {
    Refusal r = s.refuse(RefusalCode::PathOutside, refusal->message, "begin_round (files inside the repository)");
    r.field = arg;
    return r;
  }
  const std::string f = std::get<std::string>(rel);
  if (util::startsWith(f, ".kopt/") || f == ".kopt" || util::startsWith(f, ".git/") || f == ".git") {
    Refusal r = s.refuse(RefusalCode::PathOutside, arg + " = '" + f + "' is kopt's or git's own data, not kernel code",
                         "begin_round");
    r.field = arg;
    return r;
  }
  if (!detail::inAnyScope(f, s.manifest.kernelSource)) {
    return invalid(s, arg + " = '" + f + "' is outside the kernel sources (" + util::join(s.manifest.kernelSource, ", ") +
                          "); a round may only change the kernel",
                   arg);
  }
  for (const auto& fr : frozenRel) {
    if (detail::inScope(fr, f) || detail::inScope(f, fr)) {
      Refusal r = s.refuse(RefusalCode::FrozenChanged,
                           arg + " = '" + f + "' is frozen at BASELINE (" + fr + "); the harness cannot change", "begin_round");
      r.field = arg;
      return r;
    }
  }
  return f;
}

// The declared files, each checked, without repeats.
std::variant<std::vector<std::string>, Refusal> declaredFiles(const OpenCampaign& s, const std::vector<std::string>& given) {
  std::vector<std::string> frozenRel;
  for (const auto& e : s.state.frozen.entries()) {
    if (e.kind == FrozenEntry::Kind::File && !e.path.is_absolute()) frozenRel.push_back(e.path.generic_string());
  }
  std::vector<std::string> files;
  for (std::size_t i = 0; i < given.size(); ++i) {
    auto f = declaredFile(s, given[i], "files[" + std::to_string(i) + "]", frozenRel);
    if (auto* refusal = std::get_if<Refusal>(&f)) return *refusal;
    const std::string& path = std::get<std::string>(f);
    if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
  }
  return files;
}

// HEAD must be the last accepted commit (commits are kopt's to make); the files already changed
// since it are returned, for the agent to see.
std::variant<std::vector<std::string>, Stop> changedSinceBest(const OpenCampaign& s) {
  try {
    lineage::GitRepo repo(s.repo);
    const std::string head = repo.headCommit();
    if (head != s.state.bestCommit) {
      return Stop{s.refuse(RefusalCode::HeadMoved,
                           "git HEAD is " + head.substr(0, 12) + ", not the last accepted commit " +
                               s.state.bestCommit.substr(0, 12) + ": commits are kopt's to make",
                           "begin_round, after `git reset --soft " + s.state.bestCommit.substr(0, 12) +
                               "` (keeps your edits) or checking out the campaign branch")};
    }
    std::vector<std::string> already;
    for (const auto& c : repo.changedSince(s.state.bestCommit)) already.push_back(c.path);
    return already;
  } catch (const std::exception& e) {
    return Stop{toolFailure(std::string("git: ") + e.what())};
  }
}

}  // namespace

Outcome<BeginRoundResult> CampaignEngine::beginRound(const BeginRoundRequest& q) {
  CallContext ctx;
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::BeginRound, ctx);
  if (!opened.ok()) return errorOf<BeginRoundResult>(opened);
  OpenCampaign& s = *opened.value();
  if (auto refusal = loopAllowsRound(s)) return *refusal;
  records::Hypothesis h = q.hypothesis;
  if (auto refusal = checkHypothesis(s, h)) return *refusal;
  auto files = declaredFiles(s, h.files);
  if (auto* refusal = std::get_if<Refusal>(&files)) return *refusal;
  h.files = std::get<std::vector<std::string>>(files);
  auto already = changedSinceBest(s);
  if (auto* stop = std::get_if<Stop>(&already)) return outcomeOf<BeginRoundResult>(*stop);

  const int round = s.state.lastRound + 1;
  const RoundPaths rp = s.paths.round(round);
  std::string sha;
  try {
    rp.createLayout();
    records::writeHypothesisJson(rp.hypothesis, h, round);
    sha = util::sha256FileHex(rp.hypothesis);
    s.checkpoint("begin:after-hypothesis");
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot write hypothesis.json: ") + e.what());
  }
  RoundBegun begun;
  begun.hypothesis = h;
  begun.hypothesisSha256 = sha;
  begun.lineageHead = s.state.bestCommit;
  begun.files = h.files;
  begun.configOnly = h.configOnly;
  s.record(begun, round);
  BeginRoundResult result;
  result.round = round;
  result.lineageHead = s.state.openRound ? s.state.openRound->lineageHead : "";
  result.declaredFiles = h.files;
  result.configOnly = h.configOnly;
  result.hypothesisSha256 = sha;
  result.alreadyChanged = std::get<std::vector<std::string>>(already);
  result.phase = s.state.phase;
  return result;
}

namespace {

// A backend that needs no build (no build_command): the round's build is recorded as skipped.
StepResult skippedBuild(OpenCampaign& s, int round, const std::string& fingerprint, StepResult result) {
  BuildFinished skipped;
  skipped.ok = true;
  skipped.skipped = true;
  skipped.outcome = "skipped";
  skipped.fingerprint = fingerprint;
  s.record(skipped, round);
  result.ok = true;
  result.skipped = true;
  result.outcome = "skipped: no build_command (the backend needs no rebuild)";
  result.phase = s.state.phase;
  return result;
}

Outcome<StepResult> runStep(const EngineOptions& options, const StepRequest& q, const CallContext& ctx, bool build) {
  auto opened = detail::openForTool(options, q.campaignDir, build ? CampaignTool::RebuildKernel : CampaignTool::RunTests, ctx);
  if (!opened.ok()) return errorOf<StepResult>(opened);
  OpenCampaign& s = *opened.value();
  const int round = s.state.openRound->number;
  const RoundPaths rp = s.paths.round(round);
  rp.createLayout();
  StepResult result;
  result.round = round;
  if (auto failure = detail::pythonShadowFailure(s, build ? "rebuild_kernel" : "run_tests")) return *failure;
  result.step = build ? "build" : "tests";
  result.logPath = (build ? rp.buildLog : rp.testLog).string();
  const std::string fingerprint = detail::treeFingerprint(s.repo, detail::kernelScope(s));
  auto executor = detail::makeExecutorFor(options, s.manifest);
  if (build && s.manifest.buildCommand.empty()) return skippedBuild(s, round, fingerprint, std::move(result));
  if (!build) {
    // Tests run against what is in the tree now.
    const detail::TreeBuild candidate =
        detail::ensureCandidateBuilt(s, *executor, fingerprint, "run_tests", ctx, 0, 2.0);
    if (candidate.unjudged) return *candidate.unjudged;
    if (!candidate.error.empty()) {
      result.ok = false;
      result.outcome = "build failed";
      result.logTail = candidate.error;
      result.logPath = rp.buildLog.string();
      result.phase = s.state.phase;
      return result;
    }
    // The coming validate_round's workers start up while the tests run.
    if (options.startWorkersAhead) detail::startWorkersAhead(s, *executor, rp, ctx);
  } else {
    SpareWorkers::shared().clear();  // started for the build that this one replaces
  }
  s.beginStep(round, build ? "build" : "tests");
  const Command& cmd = build ? s.manifest.buildCommand : s.manifest.testCommand;
  exec::RunResult r = detail::runLogged(*executor, cmd, s.placeholders(s.repo), s.repo, build ? rp.buildLog : rp.testLog,
                                        build ? s.manifest.timeouts.buildSeconds : s.manifest.timeouts.testSeconds,
                                        s.manifest.timeouts.hangSeconds, ctx, build ? "build" : "tests", build ? 0 : 1, 2.0);
  if (auto failure = detail::unjudgedRunFailure(r, build ? "rebuild_kernel" : "run_tests")) {
    s.clearStep();
    return *failure;
  }
  s.checkpoint(build ? "build:after-run" : "tests:after-run");
  if (build) {
    BuildFinished built = detail::buildFinished(r, fingerprint);
    if (r.ok()) built.content = detail::candidateContentFingerprint(s);
    s.record(built, round);
  } else {
    s.record(detail::testsFinished(r, fingerprint), round);
  }
  result.ok = r.ok();
  result.outcome = detail::describe(r);
  result.exitCode = r.exitCode;
  result.wallMs = r.wallTime.count();
  result.logTail = detail::logTail(build ? rp.buildLog : rp.testLog, 4000);
  result.phase = s.state.phase;
  return result;
}

}  // namespace

Outcome<StepResult> CampaignEngine::rebuildKernel(const StepRequest& q, const CallContext& ctx) {
  return runStep(options_, q, ctx, true);
}

Outcome<StepResult> CampaignEngine::runTests(const StepRequest& q, const CallContext& ctx) {
  return runStep(options_, q, ctx, false);
}

namespace {

// Both arms ready to measure: the candidate built in the tree, the current best in its worktree.
std::optional<ToolFailure> buildBothArms(OpenCampaign& s, exec::Executor& executor, const std::string& fingerprint,
                                         const RoundPaths& rp, const CallContext& ctx, double progressTotal) {
  const detail::TreeBuild candidate =
      detail::ensureCandidateBuilt(s, executor, fingerprint, "run_quick_bench", ctx, 0, progressTotal);
  if (candidate.unjudged) return candidate.unjudged;
  if (!candidate.error.empty()) {
    return toolFailure("the candidate does not build, so there is nothing to measure: " + candidate.error, "",
                       "fix the build (see artifacts/build.log) and call rebuild_kernel");
  }
  return detail::bestTreeFailure(s, executor, rp.artifacts / "best_build.log", "run_quick_bench", ctx);
}

// The bench's interleaved pairs under `tag`, or why there are none: a cancelled call or a lost
// node leaves partial files, which are discarded, and nothing is recorded.
std::variant<std::vector<PairRun>, ToolFailure> measureBench(OpenCampaign& s, exec::Executor& executor,
                                                             const EngineOptions& options, const BenchRequest& q,
                                                             const std::string& tag, int pairs, const CallContext& ctx) {
  const int round = s.state.openRound->number;
  const RoundPaths rp = s.paths.round(round);
  s.beginStep(round, "bench", PendingMeasurement{tag, {}, ""});
  MeasurementPlan plan = detail::planFor(s, q.full, s.paths.bestWorktree, rp.artifacts / "runs", tag);
  MeasurementRunner runner(executor, options.seedSource);
  auto runs = runner.run(plan, 0, pairs, ctx, 2, 2.0 + 2.0 * pairs);
  s.checkpoint("bench:after-pairs");
  if (ctx.cancel.cancelled() || !runner.lostRun().empty()) {
    detail::discardMeasurement(s, round, tag);
    s.clearStep();
    if (ctx.cancel.cancelled()) return toolFailure("run_quick_bench was cancelled; its partial runs were discarded");
    return detail::lostRunFailure("run_quick_bench", runner.lostRun());
  }
  return runs;
}

BenchResult benchResult(const OpenCampaign& s, const BenchRequest& q, const BenchPreview& preview,
                        const std::vector<PairRun>& runs, const RoundPaths& rp) {
  BenchResult result;
  result.round = s.state.openRound->number;
  result.kind = q.full ? "full" : "quick";
  result.pairs = preview.assembled.usablePairs;
  result.shapes = detail::shapeRows(preview.assembled, runs, &preview.gate);
  result.aggregate = detail::aggregateRow(s, result.shapes, &preview.gate);
  result.preview = measure::toString(preview.gate.decision);
  result.reasons = detail::gateReasons(preview.gate);
  for (const auto& p : preview.assembled.problems) {
    result.reasons.insert(result.reasons.begin(), GateReason{"run_problem", "", p});
  }
  result.benchmarkCsv = rp.benchmarkCsv.string();
  result.runsDir = (rp.artifacts / "runs").string();
  result.phase = s.state.phase;
  return result;
}

}  // namespace

Outcome<BenchResult> CampaignEngine::runQuickBench(const BenchRequest& q, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::RunQuickBench, ctx);
  if (!opened.ok()) return errorOf<BenchResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  const int round = s.state.openRound->number;
  const RoundPaths rp = s.paths.round(round);
  rp.createLayout();
  const int pairs = q.pairs > 0 ? std::min(q.pairs, std::max(m.gate.maxPairs, 1)) : m.gate.pairs;
  if (auto failure = detail::pythonShadowFailure(s, "run_quick_bench")) return *failure;
  auto executor = detail::makeExecutorFor(options_, m);
  const std::string fingerprint = detail::treeFingerprint(s.repo, detail::kernelScope(s));
  if (auto failure = buildBothArms(s, *executor, fingerprint, rp, ctx, 2.0 + 2.0 * pairs)) return *failure;
  const int k = detail::measurementOrdinal(s, round);
  const std::string tag = "r" + std::to_string(round) + "-" + (q.full ? "full" : "quick") + "-" + std::to_string(k);
  auto measured = measureBench(s, *executor, options_, q, tag, pairs, ctx);
  if (auto* failure = std::get_if<ToolFailure>(&measured)) return *failure;
  const auto& runs = std::get<std::vector<PairRun>>(measured);
  detail::writeMeasurementIndex(rp.artifacts / ("measurement-" + tag + ".json"), tag, fingerprint, q.full, runs);
  detail::publishBenchmarkCsv(runs, rp);
  const BenchPreview preview = previewBench(runs, detail::frozenHeader(s), detail::expectedLabels(s, q.full),
                                            detail::calibrationOf(s), gatePolicyFor(m));
  s.record(benchFinished(preview, tag, fingerprint, q.full), round);
  return benchResult(s, q, preview, runs, rp);
}

}  // namespace kopt::campaign
