// validate_round: the referee's checks, in order. Refusals (the call breaks the rules): frozen
// files changed, hypothesis.json edited, HEAD moved, files outside the declared set, an empty
// diff that is not config-only, nothing changed since a final verdict. Verdicts (the round is
// judged): build, tests, Check, schema and shape set, then the statistical gate with automatic
// re-measurement up to the pair cap, escalation from quick to full on a small win, and the
// plausibility audit. The steps live beside it: the checks in round_checks.h, the measurement and
// its looks in validation_looks.h, the verdict and the audit in validation_verdict.h, what is
// written and recorded in validation_record.h; this file runs them in order.
#include <map>

#include "campaign/campaign_peak.h"
#include "campaign/candidate_tree.h"
#include "campaign/command_outcome.h"
#include "campaign/command_run.h"
#include "campaign/engine.h"
#include "campaign/engine_steps.h"
#include "campaign/measurement_setup.h"
#include "campaign/result_rows.h"
#include "campaign/round_checks.h"
#include "campaign/validation_looks.h"
#include "campaign/validation_record.h"
#include "campaign/validation_verdict.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kopt::campaign {

using detail::OpenCampaign;
using json = nlohmann::json;

namespace detail {

std::vector<FrozenDifference> verifyFrozen(const OpenCampaign& s) {
  std::map<std::string, std::string> texts;
  texts["schema header"] = frozenHeader(s);
  texts["shape list"] = util::join(expectedLabels(s, true), ",");
  texts["representative shapes"] = util::join(representativeShapes(s), ",");
  texts["test_command"] = s.manifest.testCommand.text;
  texts["benchmark_command"] = s.manifest.benchmarkCommand.text;
  texts["quick_command"] = s.manifest.quickCommand.text;
  texts["build_command"] = s.manifest.buildCommand.text;
  const auto nonKernel = nonKernelFileHashes(s);
  texts[kFrozenNonKernelFiles] = nonKernelFingerprint(nonKernel);
  auto diffs = s.state.frozen.verify(s.repo, texts);
  for (auto& d : diffs) {
    if (d.name != kFrozenNonKernelFiles) continue;
    // Name the files: the list written at BASELINE says what each was (the ledger's hash, not
    // this list, is what decided that something changed).
    std::map<std::string, std::string> was;
    try {
      was = util::readJsonFile(s.paths.root / "frozen-files.json")
                .value_or(json::object())
                .get<std::map<std::string, std::string>>();
    } catch (const std::exception&) {  // not a map of strings: the files stay unnamed
    }
    const std::vector<std::string> changed = namedFileChanges(was, nonKernel);
    d.message = "files outside the kernel sources changed since BASELINE (the harness and everything the "
                "commands build are frozen, whatever git shows): " +
                (changed.empty() ? std::string("sha256 of their contents differs") : util::join(changed, ", "));
  }
  return diffs;
}

}  // namespace detail


namespace {

using detail::ValidationContext;
using detail::ValidationRun;

// The device's measured ceiling, else its datasheet, else the arch's (campaign_peak.h): the same
// choice T2 makes, so the audit fires at what the hardware the campaign runs on can do.
std::optional<double> peakFor(const Manifest& m, const measure::PrimaryMetric& metric) {
  const auto choice = campaignPeak(m, metric);
  if (!choice) return std::nullopt;
  return choice->value;
}

// The candidate builds and its tests pass (reused when they already passed on these files). A
// failure of either is a ROLLBACK verdict; a run that judged nothing (cancelled, or lost by the
// cluster: command_outcome.h) stops the call.
std::optional<Stop> buildAndTest(const ValidationContext& c, ValidationRun& run, std::vector<std::string>& checks) {
  OpenCampaign& s = c.session;
  const Manifest& m = s.manifest;
  const detail::TreeBuild candidate =
      detail::ensureCandidateBuilt(s, c.executor, c.fingerprint, "validate_round", c.ctx, 0, c.progressTotal);
  if (candidate.unjudged) return *candidate.unjudged;
  if (!candidate.error.empty()) {
    run.verdict.rollBack("build_failed", candidate.error);
    return std::nullopt;
  }
  checks.push_back(m.buildCommand.empty() ? "no build needed" : "build ok");
  const RoundProgress* progress = s.rounds.round(c.round);
  const TestsFinished* lastTests = progress ? progress->lastTests : nullptr;
  if (lastTests && lastTests->ok && lastTests->fingerprint == c.fingerprint) {
    checks.push_back("tests ok");
    return std::nullopt;
  }
  s.beginStep(c.round, "tests");
  exec::RunResult r = detail::runLogged(c.executor, m.testCommand, s.placeholders(s.repo), s.repo, c.paths.testLog,
                                        m.timeouts.testSeconds, m.timeouts.hangSeconds, c.ctx, "tests", 1, c.progressTotal);
  if (auto failure = detail::unjudgedRunFailure(r, "validate_round")) {
    s.clearStep();
    return *failure;
  }
  s.record(detail::testsFinished(r, c.fingerprint), c.round);
  if (r.ok()) {
    checks.push_back("tests ok");
  } else {
    run.verdict.rollBack("tests_failed",
                         "the tests " + detail::describe(r) + "; log tail:\n" + detail::logTail(c.paths.testLog, 2000));
  }
  return std::nullopt;
}

// Physics before statistics: flagged numbers are not accepted silently. The plausibility flags
// of an accepting verdict (none for any other).
std::vector<std::string> auditAccepted(const Manifest& m, const std::vector<ShapeRow>& rows, ValidationVerdict& verdict) {
  if (!verdict.accepting()) return {};
  const measure::PrimaryMetric metric = measureMetric(m);
  const PlausibilityAudit audit = auditPlausibility(rows, metric, peakFor(m, metric));
  applyAudit(verdict, audit);
  return audit.flags;
}

void fillResult(ValidateResult& result, const OpenCampaign& s, const RoundPaths& rp, const ValidationRun& run,
                const std::vector<ShapeRow>& rows, const std::vector<std::string>& flags) {
  result.decision = toString(*run.verdict.decision);
  result.reasons = run.verdict.reasons;
  result.kind = run.full ? "full" : "quick";
  result.pairs = run.assembled.usablePairs;
  result.shapes = rows;
  result.aggregate = detail::aggregateRow(s, rows, run.gate ? &*run.gate : nullptr);
  result.flags = flags;
  result.benchmarkCsv = rp.benchmarkCsv.string();
  result.phase = s.state.phase;
}

}  // namespace

Outcome<ValidateResult> CampaignEngine::validateRound(const ValidateRequest& q, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::ValidateRound, ctx);
  if (!opened.ok()) return errorOf<ValidateResult>(opened);
  OpenCampaign& s = *opened.value();
  const OpenRound open = *s.state.openRound;
  const RoundPaths rp = s.paths.round(open.number);
  rp.createLayout();
  ValidateResult result;
  result.round = open.number;
  detail::CheckedRound checked;
  if (auto stop = detail::checkRoundBeforeMeasuring(s, open, rp, result, checked)) {
    return outcomeOf<ValidateResult>(std::move(*stop));
  }

  auto executor = detail::makeExecutorFor(options_, s.manifest);
  const measure::GatePolicy policy = detail::policyForPlan(s, gatePolicyFor(s.manifest));
  const ValidationContext c{s, *executor, ctx, rp, open.number, checked.fingerprint, policy,
                            4.0 + 2.0 * policy.maxPairs};
  ValidationRun run;
  run.full = q.full;
  if (auto stop = buildAndTest(c, run, result.checks)) return outcomeOf<ValidateResult>(std::move(*stop));
  if (!run.verdict.decided()) {
    if (auto stop = detail::measureAndGate(c, options_.seedSource, run, result.checks)) {
      return outcomeOf<ValidateResult>(std::move(*stop));
    }
  }
  const std::vector<ShapeRow> rows = detail::shapeRows(run.assembled, run.pairs, run.gate ? &*run.gate : nullptr);
  const std::vector<std::string> flags = auditAccepted(s.manifest, rows, run.verdict);
  detail::recordValidation(s, open, rp, run, flags, checked, result.changedFiles);
  fillResult(result, s, rp, run, rows, flags);
  return result;
}

}  // namespace kopt::campaign
