// The end of a campaign: termination_check (T1-T4, the stagnation review), final_acceptance (the
// best build against the baseline build on all target shapes, interleaved, plus the full tests)
// and report (report.md + charts through the report renderer, the Final Report section of
// optimize.md).
#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <set>
#include <sstream>
#include <system_error>

#include "campaign/bench_preview.h"
#include "campaign/campaign_peak.h"
#include "campaign/candidate_tree.h"
#include "campaign/command_outcome.h"
#include "campaign/command_run.h"
#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/loop_policy.h"
#include "campaign/measured_record.h"
#include "campaign/measurement_setup.h"
#include "campaign/report/report_files.h"
#include "campaign/result_rows.h"
#include "campaign/rolled_back_rounds.h"
#include "campaign/termination_conditions.h"
#include "campaign/worktree_build.h"
#include "device/peak_table.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace {

std::optional<double> bestAggregate(const OpenCampaign& s) {
  if (auto r = detail::roundRecord(s, s.state.bestRound.value_or(1))) return r->aggregate.value;
  return std::nullopt;
}

// The device's measured ceiling, else its datasheet, else the arch's (campaign_peak.h): the same
// choice the plausibility audit makes, so T2's "80 % of peak" is of what the hardware can do.
std::optional<double> peakOf(const Manifest& m) {
  const auto choice = campaignPeak(m, measureMetric(m));
  if (!choice) return std::nullopt;
  return choice->value;
}

// Seconds since an ISO-8601 UTC ledger time stamp ("2026-04-12T09:30:05.123Z"); nullopt if unparsable.
std::optional<long long> secondsSince(const std::string& iso, util::SystemTime now) {
  std::tm tm{};
  std::istringstream in(iso.substr(0, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  const std::time_t then = timegm(&tm);
  return static_cast<long long>(std::chrono::system_clock::to_time_t(now) - then);
}

}  // namespace

Outcome<TerminationResult> CampaignEngine::terminationCheck(const TerminationRequest& q) {
  CallContext ctx;
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::TerminationCheck, ctx);
  if (!opened.ok()) return errorOf<TerminationResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  const auto best = bestAggregate(s);
  const std::string unit = measureMetric(m).unit();
  // The budget in time (max_duration) is counted from the user's confirmation.
  std::optional<long long> elapsed;
  if (const auto* confirmed = s.lastEvent<TargetConfirmed>()) elapsed = secondsSince(confirmed->ts, options_.clock());
  TerminationResult result;
  result.conditions = {targetCondition(m.performanceTarget, best, unit), peakCondition(peakOf(m), best, unit, m.targetGpu),
                       budgetCondition(s.state.lastRound - 1, m.maxIterations, m.maxDuration, elapsed),
                       userStopCondition(q.userStop)};
  result.stop = std::any_of(result.conditions.begin(), result.conditions.end(), [](const auto& c) { return c.met; });

  // Stagnation review (loop_policy.h): after a run of rollbacks, new directions in several categories.
  auto parsed = parseDirections(q.directions);
  if (auto* bad = std::get_if<ToolFailure>(&parsed)) return *bad;
  const auto& [directions, categories] = std::get<ParsedDirections>(parsed);
  const LoopPolicy& loop = loopPolicy();
  result.stagnationReviewRequired = loop.needsStagnationReview(s.state.consecutiveRollbacks);
  if (result.stagnationReviewRequired && !result.stop) {
    if (directions.size() < static_cast<std::size_t>(loop.stagnationDirections) || categories < loop.stagnationCategories) {
      return toolFailure(std::to_string(s.state.consecutiveRollbacks) +
                             " rollbacks in a row: the stagnation review needs at least " + loop.reviewRule() +
                             " (got " + std::to_string(directions.size()) + " in " + std::to_string(categories) + ")",
                         "directions", "pass directions: ['tiling: ...', 'memory: ...', 'tiling: ...']");
    }
    result.stagnationReviewDone = true;
  }
  result.decision = stopDecision(result.conditions);
  TerminationChecked checked;
  checked.afterRound = s.state.lastRound;
  for (const auto& c : result.conditions) checked.conditions.push_back({c.id, c.met, c.detail});
  checked.stop = result.stop;
  checked.decision = result.decision;
  checked.stagnationReview = result.stagnationReviewDone;
  checked.directions = directions;
  s.record(checked, std::nullopt);
  if (result.stop) result.next.push_back({"final_acceptance", "full bench of the best against the baseline + full tests"});
  else result.next.push_back({"begin_round", "the next hypothesis"});
  result.phase = s.state.phase;
  return result;
}

namespace {

// Rule 10 (no premature termination), and the best's kernel files as they were accepted.
std::optional<Stop> finalPreconditions(OpenCampaign& s) {
  const TerminationChecked* term = s.rounds.terminationSinceLastRound();
  if (!term || !term->stop) {
    return s.refuse(RefusalCode::TerminationNotChecked,
                    "no termination_check since the last round decided to stop (T1-T4); the loop does not end early",
                    "termination_check (user_stop: true if the user wants to stop)");
  }
  try {
    std::vector<std::string> dirty;
    for (const auto& c : lineage::GitRepo(s.repo).changedSince(s.state.bestCommit)) {
      if (detail::inAnyScope(c.path, s.manifest.kernelSource)) dirty.push_back(c.path);
    }
    if (!dirty.empty()) {
      Refusal r = s.refuse(RefusalCode::UndeclaredFiles,
                           "the kernel files differ from the last accepted commit; final acceptance measures the best",
                           "final_acceptance, after discarding those changes");
      r.details = dirty;
      return r;
    }
  } catch (const std::exception& e) {
    return toolFailure(std::string("git: ") + e.what());
  }
  if (auto failure = detail::pythonShadowFailure(s, "final_acceptance")) return *failure;
  return std::nullopt;
}

// The best against the baseline's worktree on every target shape, judged by the gate with the
// baseline's calibration.
struct FinalMeasurement {
  std::vector<PairRun> runs;
  AssembledRuns assembled;
  measure::GateResult gate;
};

std::variant<FinalMeasurement, ToolFailure> measureFinal(OpenCampaign& s, exec::Executor& executor,
                                                        const EngineOptions& options, const CallContext& ctx,
                                                        const fs::path& baselineTree, int pairs, double total) {
  const fs::path dir = s.paths.finalDir;
  const std::string tag = "final";
  MeasurementPlan plan = detail::planFor(s, true, baselineTree, dir / "runs", tag);
  MeasurementRunner runner(executor, options.seedSource);
  FinalMeasurement out;
  out.runs = runner.run(plan, 0, pairs, ctx, 2, total);
  if (ctx.cancel.cancelled() || !runner.lostRun().empty()) {
    detail::discardMeasurement(dir, tag);
    s.clearStep();
    if (ctx.cancel.cancelled()) return toolFailure("final_acceptance was cancelled; nothing was recorded");
    return detail::lostRunFailure("final_acceptance", runner.lostRun());
  }
  detail::writeMeasurementIndex(dir / ("measurement-" + tag + ".json"), tag, "", true, out.runs);
  out.assembled = assemble(out.runs, detail::frozenHeader(s), detail::expectedLabels(s, true));
  const measure::GateInput input = singleLookGateInput(out.assembled, detail::calibrationOf(s));
  out.gate = measure::evaluateGate(input, gatePolicyFor(s.manifest));
  return out;
}

void recordFinal(OpenCampaign& s, const FinalAcceptanceResult& result, const std::string& tests,
                 const AssembledRuns& assembled) {
  FinalAcceptanceDone done;
  done.testsOk = result.testsOk;
  done.tests = tests;
  done.pairs = result.pairs;
  for (const auto& r : result.shapes) done.shapes.push_back({r.label, r.check, r.candidate, r.best, r.ratio, r.verdict});
  done.aggregate = result.aggregate.candidate;
  done.ratioVsBaseline = result.aggregate.ratio;
  done.bestCommit = result.bestCommit;
  done.baselineCommit = result.baselineCommit;
  done.problems = assembled.problems;
  s.record(done, std::nullopt);
}

}  // namespace

Outcome<FinalAcceptanceResult> CampaignEngine::finalAcceptance(const FinalAcceptanceRequest& q, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::FinalAcceptance, ctx);
  if (!opened.ok()) return errorOf<FinalAcceptanceResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  if (auto stop = finalPreconditions(s)) return outcomeOf<FinalAcceptanceResult>(std::move(*stop));
  const fs::path dir = s.paths.finalDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  s.beginStep(s.state.lastRound, "final", PendingMeasurement{"final", {}, dir.string()});
  auto executor = detail::makeExecutorFor(options_, m);
  const int pairs = q.pairs > 0 ? q.pairs : std::max(5, m.gate.pairs);
  const double total = 2.0 + 2.0 * pairs;
  FinalAcceptanceResult result;
  result.bestCommit = s.state.bestCommit;
  result.baselineCommit = s.state.baselineCommit;
  if (!m.buildCommand.empty()) {
    auto r = detail::runLogged(*executor, m.buildCommand, s.placeholders(s.repo), s.repo, dir / "build.log",
                               m.timeouts.buildSeconds, m.timeouts.hangSeconds, ctx, "build", 0, total);
    if (auto failure = detail::unjudgedRunFailure(r, "final_acceptance")) {
      s.clearStep();
      return *failure;
    }
    if (!r.ok()) {
      s.clearStep();
      return toolFailure("the best build does not build: " + detail::describe(r), "", "see " + (dir / "build.log").string());
    }
  }
  auto t = detail::runLogged(*executor, m.testCommand, s.placeholders(s.repo), s.repo, dir / "test.log",
                             m.timeouts.testSeconds, m.timeouts.hangSeconds, ctx, "full tests", 1, total);
  if (auto failure = detail::unjudgedRunFailure(t, "final_acceptance")) {
    s.clearStep();
    return *failure;
  }
  result.testsOk = t.ok();
  result.testLog = (dir / "test.log").string();
  const fs::path baselineTree = s.paths.worktreesDir / "baseline";
  detail::TreeBuild baseline = detail::ensureWorktreeBuilt(s, *executor, baselineTree, s.state.baselineCommit,
                                                          dir / "baseline_build.log", "final_acceptance", ctx);
  if (!baseline.ready()) {
    s.clearStep();
    return baseline.unjudged ? *baseline.unjudged : toolFailure(baseline.error);
  }
  auto measured = measureFinal(s, *executor, options_, ctx, baselineTree, pairs, total);
  if (auto* failure = std::get_if<ToolFailure>(&measured)) return *failure;
  const auto& measurement = std::get<FinalMeasurement>(measured);
  result.pairs = measurement.assembled.usablePairs;
  result.shapes = detail::shapeRows(measurement.assembled, measurement.runs, &measurement.gate);
  result.aggregate = detail::aggregateRow(s, result.shapes, &measurement.gate);
  if (!measurement.runs.empty() && measurement.runs.front().candidate.table) {
    util::writeFileAtomic(dir / "benchmark.csv", util::readFile(measurement.runs.front().candidate.csv));
  }
  recordFinal(s, result, detail::describe(t), measurement.assembled);
  result.phase = s.state.phase;
  return result;
}

namespace {

measure::Verdict reportVerdict(const std::string& v, const std::string& check) {
  if (!check.empty() && check != "PASS") return measure::Verdict::Fail;
  return measure::verdictFromString(v).value_or(measure::Verdict::NotMeasured);
}

report::TransferDecision reportTransfer(const std::string& d) {
  return transferDecisionFromString(d).value_or(report::TransferDecision::None);
}

double nanIfMissing(const std::optional<double>& v) { return v ? *v : report::kNaN; }

}  // namespace

namespace {

// One finished round as the report draws it: per-shape values and speed-ups against the baseline.
report::RoundRecord reportRound(const records::RoundRecord& r, const std::map<std::string, double>& baseValue) {
  report::RoundRecord out;
  out.number = r.number;
  out.status = r.status;
  out.description = r.description;
  out.aggregate = nanIfMissing(r.aggregate.value);
  if (out.aggregate == 0.0) out.aggregate = report::kNaN;
  for (const auto& sh : r.results) {
    report::ShapeResult rs;
    rs.label = sh.label;
    rs.value = nanIfMissing(sh.primaryValue);
    auto b = baseValue.find(sh.label);
    if (b != baseValue.end() && sh.primaryValue && b->second > 0 && sh.check == "PASS") rs.speedupVsBaseline = *sh.primaryValue / b->second;
    rs.verdict = r.status == records::RoundStatus::Baseline ? measure::Verdict::Same : reportVerdict(sh.verdict, sh.check);
    rs.gainVsBestPct = nanIfMissing(sh.deltaVsBestPct);
    rs.ciLowPct = nanIfMissing(sh.ciLowPct);
    rs.ciHighPct = nanIfMissing(sh.ciHighPct);
    out.shapes.push_back(rs);
  }
  out.decisionReason = r.decisionReason;
  if (r.hypothesis) {
    out.bucket = r.hypothesis->bucket;
    report::Prediction p;
    p.metric = r.hypothesis->expected.metric;
    p.expectImprovement = r.hypothesis->expected.direction == records::EffectDirection::Increase;
    p.expectedPct = r.hypothesis->expected.sizePct;
    out.prediction = p;
  }
  out.observedPct = nanIfMissing(r.aggregate.deltaVsBestPct);
  if (r.transfer) {
    report::TransferCheck t;
    t.bucket = out.bucket;
    t.decision = reportTransfer(r.transfer->decision);
    t.note = r.transfer->estimatedRealGain;
    out.transfer = t;
  }
  return out;
}

// What the rounds taught: the directions that worked, those that did not, those rolled back
// although a shape was proven faster (rolled_back_rounds.h), what to try next.
struct Directions {
  std::vector<std::string> effective, ineffective, provenShape, nextSteps;
  int accepted = 0, rolledBack = 0;

  void add(const records::RoundRecord& r) {
    const std::string round = "round-" + std::to_string(r.number) + ": " + r.description;
    const auto proven = provenFaster(r);
    switch (directionOutcome(r.status, !proven.empty()).value_or(DirectionOutcome::Effective)) {
      case DirectionOutcome::Effective:
        if (r.status == records::RoundStatus::Baseline) break;
        ++accepted;
        effective.push_back(round);
        break;
      case DirectionOutcome::Ineffective:
        ++rolledBack;
        ineffective.push_back(round + " (" + r.decisionReason + ")");
        break;
      case DirectionOutcome::RolledBackWithProvenShape: {
        ++rolledBack;
        std::vector<std::string> shapes;
        for (const auto& p : proven) shapes.push_back(p.describe());
        provenShape.push_back(round + ": " + util::join(shapes, ", ") + "; rolled back: " + r.decisionReason);
        break;
      }
    }
    if (!r.nextDirection.empty() && r.status != records::RoundStatus::Baseline) nextSteps = {r.nextDirection};
  }
};

void addFinalAcceptance(report::CampaignHistory& h, const FinalAcceptanceDone& f, const Manifest& m) {
  if (f.aggregate) h.finalAggregate = *f.aggregate;
  for (const auto& sh : f.shapes) {
    report::ShapeResult rs;
    rs.label = sh.label;
    if (sh.value) rs.value = *sh.value;
    if (sh.ratio) rs.speedupVsBaseline = *sh.ratio;
    rs.verdict = reportVerdict(sh.verdict, sh.check);
    h.finalShapes.push_back(rs);
  }
  h.finalTestSummary = std::string(f.testsOk ? "PASSED" : "FAILED") + ": " + m.testCommand.text + " (" + f.tests + ")";
}

report::CampaignHistory historyHeader(const OpenCampaign& s, const measure::PrimaryMetric& metric) {
  const Manifest& m = s.manifest;
  report::CampaignHistory h;
  h.campaignName = s.name;
  h.op = m.targetOp;
  h.backend = toString(m.targetBackend);
  h.gpu = m.targetGpu;
  h.metricName = metric.name();
  h.metricUnit = metric.unit();
  h.devicePeak = peakOf(m);
  h.generatedAt = s.now();
  return h;
}

ReportWritten reportWritten(const OpenCampaign& s, const report::CampaignHistory& h, const Directions& d,
                            const report::ReportFiles& files, const std::optional<records::RoundRecord>& baseline) {
  const auto best = detail::roundRecord(s, s.state.bestRound.value_or(1));
  ReportWritten e;
  e.metric = h.metricName;
  e.bestRound = s.state.bestRound.value_or(1);
  e.acceptedRounds = d.accepted;
  e.rolledBackRounds = d.rolledBack;
  e.totalRounds = s.state.lastRound;
  e.effectiveDirections = d.effective;
  e.ineffectiveDirections = d.ineffective;
  e.rolledBackWithProvenShape = d.provenShape;
  e.nextSteps = h.nextSteps;
  e.finalAcceptance = h.finalTestSummary;
  e.reportPath = files.markdown.string();
  e.files = {files.markdown.string(), files.metricChart.string(), files.heatmap.string()};
  const std::optional<double> base = baseline ? baseline->aggregate.value : std::nullopt;
  if (base) e.baselineValue = *base;
  if (best && best->aggregate.value) e.bestValue = *best->aggregate.value;
  if (base && best && best->aggregate.value && *base > 0) e.improvementPct = 100.0 * (*best->aggregate.value / *base - 1.0);
  if (h.finalAggregate && base) e.realTrainingAudit = "see report.md (rule-11 re-attribution of the accepted gains)";
  return e;
}

}  // namespace

Outcome<ReportResult> CampaignEngine::report(const std::string& campaignDir) {
  CallContext ctx;
  auto opened = detail::openForTool(options_, campaignDir, CampaignTool::Report, ctx);
  if (!opened.ok()) return errorOf<ReportResult>(opened);
  OpenCampaign& s = *opened.value();
  report::CampaignHistory h = historyHeader(s, measureMetric(s.manifest));
  const std::optional<records::RoundRecord> baseline = detail::roundRecord(s, 1);
  std::map<std::string, double> baseValue;
  if (baseline) {
    for (const auto& sh : baseline->results) {
      if (sh.primaryValue) baseValue[sh.label] = *sh.primaryValue;
    }
  }
  Directions directions;
  for (const records::RoundRecord* finished : s.rounds.records()) {
    h.rounds.push_back(reportRound(*finished, baseValue));
    directions.add(*finished);
  }
  if (const auto* f = s.last<FinalAcceptanceDone>()) addFinalAcceptance(h, *f, s.manifest);
  h.nextSteps = directions.nextSteps;
  if (const auto* t = s.last<TerminationChecked>()) {
    h.terminationReason = t->decision;
    for (const auto& d : t->directions) h.nextSteps.push_back(d.category + ": " + d.text);
  }
  auto written = report::writeReportFiles(s.paths.root, h);
  if (!written.ok) return toolFailure("cannot write the report: " + written.error);
  s.record(reportWritten(s, h, directions, written.files, baseline), std::nullopt);
  ReportResult result;
  result.reportPath = written.files.markdown.string();
  result.files = {written.files.markdown.string(), written.files.metricChart.string(), written.files.heatmap.string()};
  result.markdown = util::readFileIfExists(written.files.markdown).value_or("");
  result.phase = s.state.phase;
  return result;
}

}  // namespace kopt::campaign
