// validate_round: the referee's checks, in order. Refusals (the call breaks the rules): frozen
// files changed, hypothesis.json edited, HEAD moved, files outside the declared set, an empty
// diff that is not config-only, nothing changed since a final verdict. Verdicts (the round is
// judged): build, tests, Check, schema and shape set, then the statistical gate with automatic
// re-measurement up to the pair cap, escalation from quick to full on a small win, and the
// plausibility audit.
#include <algorithm>
#include <cmath>
#include <map>
#include <system_error>

#include "campaign/campaign_peak.h"
#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/engine_support.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/loop_policy.h"
#include "campaign/settings_diff.h"
#include "device/peak_table.h"
#include "measure/percent_format.h"
#include "measure/plausibility.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
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
      was = json::parse(util::readFileIfExists(s.paths.root / "frozen-files.json").value_or("{}"))
                .get<std::map<std::string, std::string>>();
    } catch (const std::exception&) {
    }
    std::vector<std::string> changed;
    for (const auto& [path, digest] : nonKernel) {
      auto it = was.find(path);
      if (it == was.end()) changed.push_back(path + " (new)");
      else if (it->second != digest) changed.push_back(path + (digest == "<missing>" ? " (deleted)" : " (modified)"));
    }
    for (const auto& [path, digest] : was) {
      if (!nonKernel.count(path)) changed.push_back(path + " (no longer tracked)");
    }
    if (changed.size() > 8) {
      const std::size_t more = changed.size() - 8;
      changed.resize(8);
      changed.push_back("and " + std::to_string(more) + " more");
    }
    d.message = "files outside the kernel sources changed since BASELINE (the harness and everything the "
                "commands build are frozen, whatever git shows): " +
                (changed.empty() ? std::string("sha256 of their contents differs") : util::join(changed, ", "));
  }
  return diffs;
}

}  // namespace detail

namespace {

// "gemm_config.h: GEMM_TILE_M 64 -> 48", one line per setting the candidate changes (settings_diff.h).
std::vector<std::string> changedSettings(const lineage::GitRepo& repo, const std::string& head,
                                         const std::vector<lineage::ChangedPath>& changed) {
  std::vector<std::string> out;
  for (const auto& c : changed) {
    const std::string before = repo.fileAt(head, c.path).value_or("");
    const std::string after = c.kind == lineage::ChangeKind::Deleted ? "" : util::readFileIfExists(repo.topLevel() / c.path).value_or("");
    for (const auto& change : diffSettings(before, after, settingSyntaxFor(c.path)).counted) {
      out.push_back(c.path + ": " + change.describe());
    }
  }
  return out;
}

// The device's measured ceiling, else its datasheet, else the arch's (campaign_peak.h): the same
// choice T2 makes, so the audit fires at what the hardware the campaign runs on can do.
std::optional<double> peakFor(const Manifest& m, const measure::PrimaryMetric& metric) {
  const auto choice = campaignPeak(m, metric);
  if (!choice) return std::nullopt;
  return choice->value;
}

measure::ScoreVector scoresOf(const std::vector<ShapeRow>& rows, const measure::PrimaryMetric& metric, bool candidate) {
  measure::ScoreVector v;
  v.metric = metric;
  std::vector<double> pass;
  for (const auto& r : rows) {
    measure::ShapeScore sc;
    sc.label = r.label;
    const auto& x = candidate ? r.candidate : r.best;
    sc.check = r.check == "PASS" ? measure::Check::Pass : measure::Check::Fail;
    sc.value = x ? *x : std::nan("");
    if (!x) sc.problem = "not measured";
    if (sc.countsAsPass()) pass.push_back(sc.value);
    v.shapes.push_back(sc);
  }
  v.passCount = pass.size();
  v.geomeanPass = pass.empty() ? 0.0 : measure::geomean(pass);
  return v;
}

struct Verdict {
  std::string decision;  // ACCEPT / ACCEPT_WITH_NOTE / ROLLBACK / AUDIT
  std::vector<GateReason> reasons;
};

}  // namespace

Outcome<ValidateResult> CampaignEngine::validateRound(const ValidateRequest& q, const CallContext& ctx) {
  auto opened = detail::openForTool(options_, q.campaignDir, CampaignTool::ValidateRound, ctx);
  if (!opened.ok()) return errorOf<ValidateResult>(opened);
  OpenCampaign& s = *opened.value();
  const Manifest& m = s.manifest;
  const OpenRound open = *s.state.openRound;
  const int round = open.number;
  const RoundPaths rp = s.paths.round(round);
  rp.createLayout();
  ValidateResult result;
  result.round = round;

  // 1. Frozen files, schema, commands and shape lists as BASELINE froze them.
  if (auto diffs = detail::verifyFrozen(s); !diffs.empty()) {
    Refusal r = s.refuse(RefusalCode::FrozenChanged,
                         "frozen files or settings changed since BASELINE; the harness, schema, shape set and "
                         "commands cannot change during a campaign",
                         "validate_round, after restoring them");
    for (const auto& d : diffs) r.details.push_back(d.message);
    return r;
  }
  result.checks.push_back("frozen files, schema header, shape list and commands intact");
  int cachesRemoved = 0;
  if (auto failure = detail::pythonShadowFailure(s, "validate_round", &cachesRemoved)) return *failure;
  result.checks.push_back("no untracked file in place of a tracked Python source" +
                          (cachesRemoved ? " (" + std::to_string(cachesRemoved) + " bytecode cache(s) removed)"
                                         : std::string()));
  // 2. The hypothesis is frozen at begin_round.
  const RoundProgress* progress = s.rounds.round(round);
  const std::string wantSha = progress ? progress->begun->hypothesisSha256 : "";
  std::string haveSha;
  try {
    haveSha = util::sha256FileHex(rp.hypothesis);
  } catch (const std::exception&) {
    haveSha = "(missing)";
  }
  if (haveSha != wantSha) {
    Refusal r = s.refuse(RefusalCode::RecordTampered,
                         "rounds/round-" + std::to_string(round) +
                             "/hypothesis.json differs from the hypothesis recorded at begin_round; the hypothesis is "
                             "frozen before any number of the round exists",
                         "validate_round, after restoring hypothesis.json (a new hypothesis needs a new round)");
    r.details.push_back("sha256 recorded " + wantSha.substr(0, 16) + ".., now " + haveSha.substr(0, 16) + "..");
    return r;
  }
  result.checks.push_back("hypothesis unchanged since begin_round");
  // 3. The diff against the round's head touches only the declared files.
  lineage::GitRepo repo(s.repo);
  std::vector<lineage::ChangedPath> changed;
  try {
    const std::string head = repo.headCommit();
    if (head != open.lineageHead) {
      return s.refuse(RefusalCode::HeadMoved,
                      "git HEAD moved from the round's head " + open.lineageHead.substr(0, 12) + " to " +
                          head.substr(0, 12) + "; commits are kopt's to make",
                      "validate_round, after `git reset --soft " + open.lineageHead.substr(0, 12) + "`");
    }
    changed = repo.changedSince(open.lineageHead);
  } catch (const std::exception& e) {
    return toolFailure(std::string("git: ") + e.what());
  }
  std::vector<std::string> outside;
  for (const auto& c : changed) {
    result.changedFiles.push_back(c.path);
    if (!detail::inAnyScope(c.path, open.declaredFiles)) outside.push_back(c.path + " (" + lineage::toString(c.kind) + ")");
  }
  if (!outside.empty()) {
    Refusal r = s.refuse(RefusalCode::UndeclaredFiles,
                         "the working tree changes files outside the hypothesis' declared set (" +
                             util::join(open.declaredFiles, ", ") + "); one round is one declared change",
                         "validate_round, after reverting those files (or finish this round and declare them in a new one)");
    r.details = outside;
    return r;
  }
  if (changed.empty() && !open.configOnly) {
    return s.refuse(RefusalCode::EmptyDiff,
                    "nothing changed since the round's head " + open.lineageHead.substr(0, 12) +
                        "; an empty change is only allowed for a config-only round",
                    "validate_round, after making the declared change");
  }
  result.checks.push_back(changed.empty() ? "config-only round, no file changes"
                                          : std::to_string(changed.size()) + " changed file(s), all declared");
  // 3b. One hypothesis per round: a config-only round changes exactly one setting.
  if (open.configOnly && !changed.empty()) {
    std::vector<std::string> settings;
    try {
      settings = changedSettings(repo, open.lineageHead, changed);
    } catch (const std::exception& e) {
      return toolFailure(std::string("git: ") + e.what());
    }
    if (settings.size() > 1) {
      Refusal r = s.refuse(RefusalCode::TooManyChanges,
                           "a config-only round changes one setting, and this candidate changes " +
                               std::to_string(settings.size()) +
                               " of them; with two changes in one round no measurement can say which one did what",
                           "validate_round, after reverting all but one setting (one setting per round; split into "
                           "two rounds)");
      r.details = settings;
      return r;
    }
    if (settings.size() == 1) result.checks.push_back("config-only round changes one setting: " + settings.front());
  }
  const std::string fingerprint = detail::treeFingerprint(s.repo, detail::kernelScope(s));
  // 4. A final verdict on this exact tree stands: validating again would only re-roll the dice.
  if (const RoundValidated* earlier = progress ? progress->verdictOn(fingerprint) : nullptr) {
    return s.refuse(RefusalCode::NothingChanged,
                    "round " + std::to_string(round) + " was already validated on exactly these files (verdict " +
                        earlier->decision + "); measuring again until the numbers look better is not allowed",
                    "accept_or_revert (or change the code to fix it, then validate_round)");
  }

  auto executor = detail::makeExecutorFor(options_, m);
  const measure::PrimaryMetric metric = measureMetric(m);
  const measure::GatePolicy policy = gatePolicyFor(m);
  const double total = 4.0 + 2.0 * policy.maxPairs;
  records::RoundRecord record;
  Verdict verdict;
  std::vector<std::string> tags;
  bool full = q.full;
  std::vector<PairRun> pairs;
  AssembledRuns assembled;
  std::optional<measure::GateResult> gate;

  auto finishRollback = [&](const std::string& code, const std::string& message) {
    verdict.decision = "ROLLBACK";
    verdict.reasons.insert(verdict.reasons.begin(), GateReason{code, "", message});
  };

  // 5. Build.
  std::string buildError = detail::ensureCandidateBuilt(s, *executor, fingerprint, ctx, 0, total);
  if (!buildError.empty() && ctx.cancel.cancelled()) return toolFailure("validate_round was cancelled; nothing was recorded");
  if (!buildError.empty()) {
    finishRollback("build_failed", buildError);
  } else {
    result.checks.push_back(m.buildCommand.empty() ? "no build needed" : "build ok");
    // 6. Tests (reused when they already passed on these files).
    const TestsFinished* lastTests = s.rounds.round(round) ? s.rounds.round(round)->lastTests : nullptr;
    bool testsOk = lastTests && lastTests->ok && lastTests->fingerprint == fingerprint;
    if (!testsOk) {
      s.beginStep(round, "tests");
      exec::RunResult r = detail::runLogged(*executor, m.testCommand, s.placeholders(s.repo), s.repo, rp.testLog,
                                            m.timeouts.testSeconds, m.timeouts.hangSeconds, ctx, "tests", 1, total);
      if (r.outcome == exec::RunOutcome::Cancelled) {
        s.clearStep();
        return toolFailure("validate_round was cancelled; nothing was recorded");
      }
      s.record(detail::testsFinished(r, fingerprint), round);
      testsOk = r.ok();
      if (!testsOk) finishRollback("tests_failed", "the tests " + detail::describe(r) + "; log tail:\n" + detail::logTail(rp.testLog, 2000));
    }
    if (testsOk) result.checks.push_back("tests ok");
  }

  if (verdict.decision.empty()) {
    // 7. The interleaved A/B measurement and the gate.
    if (auto err = detail::ensureWorktreeBuilt(s, *executor, s.paths.bestWorktree, s.state.bestCommit,
                                               rp.artifacts / "best_build.log", ctx);
        !err.empty()) {
      return toolFailure(err, "", "the current best no longer builds in its worktree; check the environment");
    }
    MeasurementRunner runner(*executor, options_.seedSource);
    int k = detail::measurementOrdinal(s, round);
    double done = 2;
    for (int stage = 0; stage < 2 && verdict.decision.empty(); ++stage) {
      const std::string tag = "r" + std::to_string(round) + "-validate-" + (full ? "full" : "quick") + "-" + std::to_string(k);
      tags.push_back(tag);
      MeasurementPlan plan = detail::planFor(s, full, s.paths.bestWorktree, rp.artifacts / "runs", tag);
      pairs.clear();
      // Always fresh pairs: the agent has seen every run_quick_bench measurement (and may have
      // re-rolled it until its preview looked good), so none of them may become the verdict.
      s.beginStep(round, "validate", json{{"tag", tags.back()}});
      int batches = 0;
      // Every look adds the same number of fresh pairs (blocks): the per-look levels of the gate
      // assume equally spaced information.
      const int perLook = plan.workers ? detail::blocksPerLookOf(s, policy) : policy.defaultPairs;
      if (pairs.empty()) {
        auto fresh = runner.run(plan, 0, perLook, ctx, done, total);
        done += 2.0 * fresh.size();
        pairs = std::move(fresh);
      }
      s.checkpoint("validate:after-pairs");
      while (!ctx.cancel.cancelled() && runner.lostRun().empty()) {
        detail::writeMeasurementIndex(rp.artifacts / ("measurement-" + tags.back() + ".json"), tags.back(), fingerprint,
                                      full, pairs);
        assembled = assemble(pairs, detail::frozenHeader(s), detail::expectedLabels(s, full));
        // A candidate that failed is judged (ROLLBACK) even when the best has nothing to compare.
        if (assembled.bestRunFailed && !assembled.candidateRunFailed) {
          s.clearStep();
          return toolFailure("a bench run of the current best failed, so no comparison is possible: " +
                                 util::join(assembled.problems, "; "),
                             "", "check the environment (the best build is unchanged since it was accepted)");
        }
        measure::GateInput input;
        input.bestPassLabels = assembled.bestPassLabels;
        input.candidateChecks = assembled.candidateChecks;
        input.runs = assembled.runs;
        // Worker mode: every look is one fresh pair of worker sessions.
        input.calibration = detail::calibrationOf(s).forSessions(plan.workers ? batches + 1 : 1);
        input.remeasureBatches = batches;
        input.look = batches + 1;
        // Chain integrity compares like with like: only when the recorded best was measured on
        // the same shape set.
        auto bestRecord = detail::roundRecord(s, s.state.bestRound.value_or(1));
        std::vector<std::string> bestLabels;
        if (bestRecord) {
          for (const auto& r : bestRecord->results) bestLabels.push_back(r.label);
        }
        if (bestRecord && bestLabels == assembled.labels) {
          input.recordedBestAggregate = bestRecord->aggregate.value;
          // The candidate's absolute aggregate, same definition as the records' (median runs).
          std::vector<double> medians;
          for (const auto& [label, check] : assembled.candidateChecks) {
            if (auto m = armMedian(pairs, true, label); m && check == measure::Check::Pass) medians.push_back(*m);
          }
          if (!medians.empty() && medians.size() == assembled.candidateChecks.size()) input.candidateAggregate = measure::geomean(medians);
        }
        gate = measure::evaluateGate(input, policy);
        if (gate->decision != measure::Decision::Remeasure || assembled.schemaDrift || assembled.shapeSetDrift) break;
        // The gate returns REMEASURE only while looks remain; the pair cap bounds process pairs.
        const int room = plan.workers ? perLook : policy.maxPairs - static_cast<int>(pairs.size());
        if (room <= 0) break;
        const int add = plan.workers ? perLook
                                     : std::max(1, std::min(gate->pairsToAdd > 0 ? gate->pairsToAdd : policy.remeasurePairs, room));
        ctx.report(done, total, "gate says REMEASURE: look " + std::to_string(batches + 2) + ", " + std::to_string(add) + " more interleaved pairs");
        auto more = runner.run(plan, static_cast<int>(pairs.size()), add, ctx, done, total);
        done += 2.0 * more.size();
        for (auto& p : more) pairs.push_back(std::move(p));
        ++batches;
      }
      if (ctx.cancel.cancelled()) {
        for (const auto& t : tags) detail::discardMeasurement(s, round, t);
        s.clearStep();
        return toolFailure("validate_round was cancelled; its partial runs were discarded");
      }
      if (!runner.lostRun().empty()) {
        for (const auto& t : tags) detail::discardMeasurement(s, round, t);
        s.clearStep();
        return detail::lostRunFailure("validate_round", runner.lostRun());
      }
      // Schema and shape set are hard errors that name the difference.
      if (assembled.schemaDrift || assembled.shapeSetDrift) {
        for (const auto& p : assembled.problems) verdict.reasons.push_back({assembled.schemaDrift ? "schema_drift" : "shape_set_drift", "", p});
        verdict.decision = "ROLLBACK";
        break;
      }
      for (const auto& r : detail::gateReasons(*gate)) verdict.reasons.push_back(r);
      for (const auto& p : assembled.problems) verdict.reasons.push_back({"run_problem", "", p});
      switch (gate->decision) {
        case measure::Decision::Accept: verdict.decision = "ACCEPT"; break;
        case measure::Decision::AcceptWithNote: verdict.decision = "ACCEPT_WITH_NOTE"; break;
        case measure::Decision::Rollback: verdict.decision = "ROLLBACK"; break;
        case measure::Decision::Remeasure:
          verdict.decision = "ROLLBACK";
          verdict.reasons.insert(verdict.reasons.begin(),
                                 GateReason{"pair_cap_reached", "",
                                            "still inconclusive after " + std::to_string(pairs.size()) +
                                                " interleaved pairs (the cap): not shown better"});
          break;
      }
      // Escalation: a small quick-validation win is confirmed on all target shapes.
      const bool accepting = verdict.decision == "ACCEPT" || verdict.decision == "ACCEPT_WITH_NOTE";
      const auto fullLabels = detail::expectedLabels(s, true);
      const auto quickLabels = detail::expectedLabels(s, false);
      const double gain = gate->aggregate ? gate->aggregate->ratio - 1.0 : 0.0;
      if (accepting && !full && gain < loopPolicy().escalateBelowGain && fullLabels != quickLabels) {
        std::string note = "quick win below ";
        measure::appendPercent(note, loopPolicy().escalateBelowGain);
        ctx.report(done, total, note + ": escalating to full validation on all target shapes");
        verdict = Verdict{};
        full = true;
        ++k;
        continue;
      }
      break;
    }
    result.checks.push_back("all Check PASS, schema byte-identical and shape set identical: " +
                            std::string(assembled.schemaDrift || assembled.shapeSetDrift ||
                                                !std::all_of(assembled.candidateChecks.begin(), assembled.candidateChecks.end(),
                                                             [](const auto& c) { return c.second == measure::Check::Pass; })
                                            ? "no"
                                            : "yes"));
    detail::publishBenchmarkCsv(pairs, rp);
  }

  // 8. Physics before statistics: flagged numbers are not accepted silently.
  std::vector<ShapeRow> rows = detail::shapeRows(assembled, pairs, gate ? &*gate : nullptr);
  std::vector<std::string> flags;
  if (verdict.decision == "ACCEPT" || verdict.decision == "ACCEPT_WITH_NOTE") {
    const auto cand = scoresOf(rows, metric, true);
    const auto best = scoresOf(rows, metric, false);
    const auto report = measure::checkPlausibility(cand, &best, peakFor(m, metric));
    for (const auto& sh : report.shapes) {
      for (const auto f : sh.flags) flags.push_back(sh.label + ": " + measure::toString(f) + (sh.message.empty() ? "" : " (" + sh.message + ")"));
    }
    if (report.needsAudit()) {
      verdict.decision = "AUDIT";
      verdict.reasons.insert(verdict.reasons.begin(),
                             GateReason{"plausibility_audit", "",
                                        "numbers beyond what the hardware or one honest change can do: a person must "
                                        "audit them before ACCEPT"});
    }
  }

  record = pairs.empty() ? records::RoundRecord{} : detail::measuredRecord(s, round, pairs, assembled, gate ? &*gate : nullptr, full);
  record.number = round;
  record.campaign = s.name;
  record.timestamp = s.now();
  record.validation = full ? "full" : "quick";
  record.flags = flags;
  record.gateVerdict = verdict.decision;
  std::string reasonText;
  for (const auto& r : verdict.reasons) {
    if (!reasonText.empty()) reasonText += "; ";
    reasonText += r.message;
  }
  record.decisionReason = reasonText;
  record.lineageHead = open.lineageHead;

  json reasons = json::array();
  for (const auto& r : verdict.reasons) reasons.push_back({{"code", r.code}, {"label", r.label}, {"message", r.message}});
  util::writeFileAtomic(rp.artifacts / "validation.json",
                        json{{"round", round}, {"decision", verdict.decision}, {"reasons", reasons}, {"flags", flags},
                             {"measurements", tags}, {"fingerprint", fingerprint}}.dump(2) + "\n");
  RoundValidated validated;
  validated.decision = verdict.decision;
  for (const auto& r : verdict.reasons) validated.reasons.push_back({r.code, r.label, r.message});
  validated.fingerprint = fingerprint;
  validated.full = full;
  validated.pairs = assembled.usablePairs;
  validated.measurements = tags;
  validated.flags = flags;
  validated.hypothesisSha256 = wantSha;
  validated.changedFiles = result.changedFiles;
  validated.record = record;
  s.record(validated, round);
  result.decision = verdict.decision;
  result.reasons = verdict.reasons;
  result.kind = full ? "full" : "quick";
  result.pairs = assembled.usablePairs;
  result.shapes = rows;
  result.aggregate = detail::aggregateRow(s, rows, gate ? &*gate : nullptr);
  result.flags = flags;
  result.benchmarkCsv = rp.benchmarkCsv.string();
  result.phase = s.state.phase;
  return result;
}

}  // namespace kopt::campaign
