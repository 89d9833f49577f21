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

#include "campaign/campaign_peak.h"
#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/engine_support.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/loop_policy.h"
#include "campaign/report/report_files.h"
#include "device/peak_table.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace {

constexpr double kAcceptableFractionOfPeak = 0.80;  // T2

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

bool compare(double v, const std::string& op, double target) {
  if (op == ">=") return v >= target;
  if (op == "<") return v < target;
  if (op == "<=") return v <= target;
  return v > target;
}

}  // namespace

Outcome<TerminationResult> CampaignEngine::terminationCheck(const TerminationRequest& q) {
  CallContext ctx;
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::TerminationCheck, ctx);
  if (!opened.ok()) return errorOf<TerminationResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  TerminationResult result;
  const auto best = bestAggregate(s);
  const std::string unit = measureMetric(m).unit();
  {
    TerminationResult::Condition c{"T1", false, ""};
    if (!m.performanceTarget) {
      c.detail = "no performance_target set";
    } else if (!best) {
      c.detail = "no measured best yet";
    } else if (!m.performanceTarget->unit.empty() && util::toLower(m.performanceTarget->unit) != util::toLower(unit)) {
      c.detail = "target is in " + m.performanceTarget->unit + " but the primary metric is in " + unit;
    } else {
      c.met = compare(*best, m.performanceTarget->comparison, m.performanceTarget->value);
      c.detail = "best " + std::to_string(*best) + " " + unit + " vs target " + m.performanceTarget->text;
    }
    result.conditions.push_back(c);
  }
  {
    TerminationResult::Condition c{"T2", false, ""};
    const auto peak = peakOf(m);
    if (!peak || !(*peak > 0)) {
      c.detail = "no hardware peak known for " + m.targetGpu;
    } else if (!best) {
      c.detail = "no measured best yet";
    } else {
      const double fraction = *best / *peak;
      c.met = fraction >= kAcceptableFractionOfPeak;
      c.detail = "best is " + util::formatSignedPercent(100.0 * fraction, 1).substr(1) + " of the " +
                 std::to_string(static_cast<long long>(*peak)) + " " + unit + " peak (stop at " +
                 std::to_string(static_cast<int>(100 * kAcceptableFractionOfPeak)) + "%)";
    }
    result.conditions.push_back(c);
  }
  {
    TerminationResult::Condition c{"T3", false, ""};
    const int attempts = s.state.lastRound - 1;
    if (m.maxIterations) {
      c.met = attempts >= *m.maxIterations;
      c.detail = std::to_string(attempts) + " of max_iterations " + std::to_string(*m.maxIterations) + " rounds used";
    } else {
      c.detail = std::to_string(attempts) + " rounds used; no max_iterations";
    }
    // The budget in time (max_duration), counted from the user's confirmation.
    if (const auto* confirmed = s.lastEvent<TargetConfirmed>(); confirmed && m.maxDuration && m.maxDuration->seconds > 0) {
      if (auto elapsed = secondsSince(confirmed->ts, options_.clock())) {
        const bool over = *elapsed >= m.maxDuration->seconds;
        c.met = c.met || over;
        c.detail += "; " + std::to_string(*elapsed / 60) + " min of max_duration " + m.maxDuration->text +
                    (over ? " used up" : " used");
      }
    }
    result.conditions.push_back(c);
  }
  result.conditions.push_back({"T4", q.userStop, q.userStop ? "the user asked to stop" : "no stop request"});
  result.stop = std::any_of(result.conditions.begin(), result.conditions.end(), [](const auto& c) { return c.met; });

  // Stagnation review (loop_policy.h): after a run of rollbacks, new directions in several categories.
  std::vector<StagnationDirection> directions;
  std::set<std::string> categories;
  for (std::size_t i = 0; i < q.directions.size(); ++i) {
    const std::string& d = q.directions[i];
    const auto colon = d.find(':');
    if (colon == std::string::npos || util::trim(d.substr(0, colon)).empty() || util::trim(d.substr(colon + 1)).empty()) {
      return toolFailure("directions[" + std::to_string(i) + "] = '" + d + "' is not 'category: direction'",
                         "directions", "write each as 'category: direction', e.g. 'tiling: try 128x64 tiles'");
    }
    const std::string cat = util::toLower(util::trim(d.substr(0, colon)));
    categories.insert(cat);
    directions.push_back({cat, util::trim(d.substr(colon + 1))});
  }
  const LoopPolicy& loop = loopPolicy();
  result.stagnationReviewRequired = loop.needsStagnationReview(s.state.consecutiveRollbacks);
  if (result.stagnationReviewRequired && !result.stop) {
    if (q.directions.size() < static_cast<std::size_t>(loop.stagnationDirections) ||
        categories.size() < static_cast<std::size_t>(loop.stagnationCategories)) {
      return toolFailure(std::to_string(s.state.consecutiveRollbacks) +
                             " rollbacks in a row: the stagnation review needs at least " + loop.reviewRule() +
                             " (got " + std::to_string(q.directions.size()) + " in " +
                             std::to_string(categories.size()) + ")",
                         "directions", "pass directions: ['tiling: ...', 'memory: ...', 'tiling: ...']");
    }
    result.stagnationReviewDone = true;
  }
  std::string decision = "continue";
  for (const auto& c : result.conditions) {
    if (c.met) {
      decision = "stop: " + c.id + " (" + c.detail + ")";
      break;
    }
  }
  result.decision = decision;
  TerminationChecked checked;
  checked.afterRound = s.state.lastRound;
  for (const auto& c : result.conditions) checked.conditions.push_back({c.id, c.met, c.detail});
  checked.stop = result.stop;
  checked.decision = decision;
  checked.stagnationReview = result.stagnationReviewDone;
  checked.directions = directions;
  s.record(checked, std::nullopt);
  if (result.stop) result.next.push_back({"final_acceptance", "full bench of the best against the baseline + full tests"});
  else result.next.push_back({"begin_round", "the next hypothesis"});
  result.phase = s.state.phase;
  return result;
}

Outcome<FinalAcceptanceResult> CampaignEngine::finalAcceptance(const FinalAcceptanceRequest& q, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::FinalAcceptance, ctx);
  if (!opened.ok()) return errorOf<FinalAcceptanceResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  // Rule 10: no premature termination.
  const TerminationChecked* term = s.rounds.terminationSinceLastRound();
  if (!term || !term->stop) {
    return s.refuse(RefusalCode::TerminationNotChecked,
                    "no termination_check since the last round decided to stop (T1-T4); the loop does not end early",
                    "termination_check (user_stop: true if the user wants to stop)");
  }
  lineage::GitRepo repo(s.repo);
  try {
    std::vector<std::string> dirty;
    for (const auto& c : repo.changedSince(s.state.bestCommit)) {
      if (detail::inAnyScope(c.path, m.kernelSource)) dirty.push_back(c.path);
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
  const fs::path dir = s.paths.finalDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string tag = "final";
  s.beginStep(s.state.lastRound, "final", json{{"tag", tag}, {"artifacts", dir.string()}});
  auto executor = detail::makeExecutorFor(options_, m);
  const int pairs = q.pairs > 0 ? q.pairs : std::max(5, m.gate.pairs);
  const double total = 2.0 + 2.0 * pairs;
  FinalAcceptanceResult result;
  result.bestCommit = s.state.bestCommit;
  result.baselineCommit = s.state.baselineCommit;
  if (!m.buildCommand.empty()) {
    auto r = detail::runLogged(*executor, m.buildCommand, s.placeholders(s.repo), s.repo, dir / "build.log",
                               m.timeouts.buildSeconds, m.timeouts.hangSeconds, ctx, "build", 0, total);
    if (!r.ok()) {
      s.clearStep();
      return toolFailure("the best build does not build: " + detail::describe(r), "", "see " + (dir / "build.log").string());
    }
  }
  auto t = detail::runLogged(*executor, m.testCommand, s.placeholders(s.repo), s.repo, dir / "test.log",
                             m.timeouts.testSeconds, m.timeouts.hangSeconds, ctx, "full tests", 1, total);
  result.testsOk = t.ok();
  result.testLog = (dir / "test.log").string();
  const fs::path baselineTree = s.paths.worktreesDir / "baseline";
  if (auto err = detail::ensureWorktreeBuilt(s, *executor, baselineTree, s.state.baselineCommit, dir / "baseline_build.log", ctx);
      !err.empty()) {
    s.clearStep();
    return toolFailure(err);
  }
  MeasurementPlan plan = detail::planFor(s, true, baselineTree, dir / "runs", tag);
  MeasurementRunner runner(*executor, options_.seedSource);
  auto runs = runner.run(plan, 0, pairs, ctx, 2, total);
  if (ctx.cancel.cancelled()) {
    detail::discardMeasurement(dir, tag);
    s.clearStep();
    return toolFailure("final_acceptance was cancelled; nothing was recorded");
  }
  if (!runner.lostRun().empty()) {
    detail::discardMeasurement(dir, tag);
    s.clearStep();
    return detail::lostRunFailure("final_acceptance", runner.lostRun());
  }
  detail::writeMeasurementIndex(dir / ("measurement-" + tag + ".json"), tag, "", true, runs);
  AssembledRuns assembled = assemble(runs, detail::frozenHeader(s), detail::expectedLabels(s, true));
  measure::GateInput input;
  input.bestPassLabels = assembled.bestPassLabels;
  input.candidateChecks = assembled.candidateChecks;
  input.runs = assembled.runs;
  input.calibration = detail::calibrationOf(s);
  const measure::GateResult gate = measure::evaluateGate(input, gatePolicyFor(m));
  result.pairs = assembled.usablePairs;
  result.shapes = detail::shapeRows(assembled, runs, &gate);
  result.aggregate = detail::aggregateRow(s, result.shapes, &gate);
  if (!runs.empty() && runs.front().candidate.table) {
    util::writeFileAtomic(dir / "benchmark.csv", util::readFile(runs.front().candidate.csv));
  }
  FinalAcceptanceDone done;
  done.testsOk = result.testsOk;
  done.tests = detail::describe(t);
  done.pairs = result.pairs;
  for (const auto& r : result.shapes) done.shapes.push_back({r.label, r.check, r.candidate, r.best, r.ratio, r.verdict});
  done.aggregate = result.aggregate.candidate;
  done.ratioVsBaseline = result.aggregate.ratio;
  done.bestCommit = result.bestCommit;
  done.baselineCommit = result.baselineCommit;
  done.problems = assembled.problems;
  s.record(done, std::nullopt);
  result.phase = s.state.phase;
  return result;
}

namespace {

report::ShapeVerdict reportVerdict(const std::string& v, const std::string& check) {
  if (!check.empty() && check != "PASS") return report::ShapeVerdict::Fail;
  return shapeVerdictFromString(v).value_or(report::ShapeVerdict::NotMeasured);
}

report::TransferDecision reportTransfer(const std::string& d) {
  return transferDecisionFromString(d).value_or(report::TransferDecision::None);
}

double nanIfMissing(const std::optional<double>& v) { return v ? *v : report::kNaN; }

}  // namespace

Outcome<ReportResult> CampaignEngine::report(const std::string& campaignDir) {
  CallContext ctx;
  auto opened = detail::openForTool(options_, campaignDir, CampaignTool::Report, ctx);
  if (!opened.ok()) return errorOf<ReportResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  const auto metric = measureMetric(m);
  report::CampaignHistory h;
  h.campaignName = s.name;
  h.op = m.targetOp;
  h.backend = toString(m.targetBackend);
  h.gpu = m.targetGpu;
  h.metricName = metric.name();
  h.metricUnit = metric.unit();
  h.devicePeak = peakOf(m);
  h.generatedAt = s.now();
  std::optional<records::RoundRecord> baseline = detail::roundRecord(s, 1);
  std::map<std::string, double> baseValue;
  if (baseline) {
    for (const auto& sh : baseline->results) {
      if (sh.primaryValue) baseValue[sh.label] = *sh.primaryValue;
    }
  }
  std::vector<std::string> effective, ineffective, nextSteps;
  int accepted = 0, rolledBack = 0;
  for (const records::RoundRecord* finished : s.rounds.records()) {
    const records::RoundRecord& r = *finished;
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
      rs.verdict = r.status == records::RoundStatus::Baseline ? report::ShapeVerdict::Same : reportVerdict(sh.verdict, sh.check);
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
    h.rounds.push_back(out);
    if (r.status == records::RoundStatus::Accepted || r.status == records::RoundStatus::AcceptedWithNote) {
      ++accepted;
      effective.push_back("round-" + std::to_string(r.number) + ": " + r.description);
    } else if (r.status == records::RoundStatus::RolledBack) {
      ++rolledBack;
      ineffective.push_back("round-" + std::to_string(r.number) + ": " + r.description + " (" + r.decisionReason + ")");
    }
    if (!r.nextDirection.empty() && r.status != records::RoundStatus::Baseline) nextSteps = {r.nextDirection};
  }
  if (const auto* f = s.last<FinalAcceptanceDone>()) {
    if (f->aggregate) h.finalAggregate = *f->aggregate;
    for (const auto& sh : f->shapes) {
      report::ShapeResult rs;
      rs.label = sh.label;
      if (sh.value) rs.value = *sh.value;
      if (sh.ratio) rs.speedupVsBaseline = *sh.ratio;
      rs.verdict = reportVerdict(sh.verdict, sh.check);
      h.finalShapes.push_back(rs);
    }
    h.finalTestSummary = std::string(f->testsOk ? "PASSED" : "FAILED") + ": " + m.testCommand.text + " (" + f->tests + ")";
  }
  if (const auto* t = s.last<TerminationChecked>()) {
    h.terminationReason = t->decision;
    for (const auto& d : t->directions) nextSteps.push_back(d.category + ": " + d.text);
  }
  h.nextSteps = nextSteps;
  auto written = report::writeReportFiles(s.paths.root, h);
  if (!written.ok) return toolFailure("cannot write the report: " + written.error);

  const auto best = detail::roundRecord(s, s.state.bestRound.value_or(1));
  ReportWritten reportEvent;
  reportEvent.metric = metric.name();
  reportEvent.bestRound = s.state.bestRound.value_or(1);
  reportEvent.acceptedRounds = accepted;
  reportEvent.rolledBackRounds = rolledBack;
  reportEvent.totalRounds = s.state.lastRound;
  reportEvent.effectiveDirections = effective;
  reportEvent.ineffectiveDirections = ineffective;
  reportEvent.nextSteps = nextSteps;
  reportEvent.finalAcceptance = h.finalTestSummary;
  reportEvent.reportPath = written.files.markdown.string();
  reportEvent.files = {written.files.markdown.string(), written.files.metricChart.string(), written.files.heatmap.string()};
  if (baseline && baseline->aggregate.value) reportEvent.baselineValue = *baseline->aggregate.value;
  if (best && best->aggregate.value) reportEvent.bestValue = *best->aggregate.value;
  if (baseline && best && baseline->aggregate.value && best->aggregate.value && *baseline->aggregate.value > 0)
    reportEvent.improvementPct = 100.0 * (*best->aggregate.value / *baseline->aggregate.value - 1.0);
  if (h.finalAggregate && baseline && baseline->aggregate.value) {
    reportEvent.realTrainingAudit = "see report.md (rule-11 re-attribution of the accepted gains)";
  }
  s.record(reportEvent, std::nullopt);
  ReportResult result;
  result.reportPath = written.files.markdown.string();
  result.files = {written.files.markdown.string(), written.files.metricChart.string(), written.files.heatmap.string()};
  result.markdown = util::readFileIfExists(written.files.markdown).value_or("");
  result.phase = s.state.phase;
  return result;
}

}  // namespace kopt::campaign
