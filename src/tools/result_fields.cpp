#include "tools/result_fields.h"

#include "campaign/engine_phase_table.h"

namespace kopt::tools {

using campaign::Phase;

void describePhase(FieldVisitor& v, Phase& phase, bool required) {
  static const NameTable<Phase> names =
      spelledBy(campaign::allPhases(), [](Phase p) { return std::string(campaign::toString(p)); });
  Field f = out("phase");
  if (required) f.required();
  choice(v, f, phase, names);
}

void describeNextTool(FieldVisitor& v, Phase phase) {
  std::string next = campaign::nextToolFor(phase);
  v.field(out("next_tool"), next);
}

void describe(FieldVisitor& v, campaign::NextStep& n) {
  v.field(out("tool").required(), n.tool);
  v.field(out("why"), n.why);
}

void describe(FieldVisitor& v, campaign::ShapeRow& r) {
  v.field(out("label").required(), r.label);
  v.field(out("check").required(), r.check);
  v.field(out("candidate"), r.candidate);
  v.field(out("best"), r.best);
  v.field(out("ratio"), r.ratio);
  v.field(out("ci_low_pct"), r.ciLowPct);
  v.field(out("ci_high_pct"), r.ciHighPct);
  v.field(out("delta_pct"), r.deltaPct);
  v.field(out("mde_pct"), r.mdePct);
  v.field(out("tolerance_pct"), r.tolerancePct);
  v.field(out("verdict").required(), r.verdict);
  v.field(out("note"), r.note);
}

void describe(FieldVisitor& v, campaign::AggregateRow& a) {
  v.field(out("metric"), a.metric);
  v.field(out("candidate"), a.candidate);
  v.field(out("best"), a.best);
  v.field(out("ratio"), a.ratio);
  v.field(out("ci_low_pct"), a.ciLowPct);
  v.field(out("ci_high_pct"), a.ciHighPct);
  v.field(out("vs_baseline_pct"), a.vsBaselinePct);
}

void describe(FieldVisitor& v, campaign::GateReason& r) {
  v.field(out("code").required(), r.code);
  v.field(out("label"), r.label);
  v.field(out("message").required(), r.message);
}

void describe(FieldVisitor& v, campaign::DefineTargetResult& r) {
  v.field(out("campaign_name").required(), r.campaignName);
  v.field(out("campaign_dir").required(), r.campaignDir);
  v.field(out("repo"), r.repo);
  v.field(out("manifest_yaml"), r.manifestYaml);
  v.field(out("summary"), r.summary);
  v.field(out("redefined"), r.redefined);
  v.field(out("warnings"), r.warnings);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::ConfirmTargetResult& r) {
  v.field(out("confirmed_by").required(), r.confirmedBy);
  v.field(out("method"), r.method);
  v.field(out("manifest_sha256"), r.manifestSha256);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::PrepareEnvironmentResult& r) {
  v.field(out("branch"), r.branch);
  v.field(out("base_commit").required(), r.baseCommit);
  v.field(out("campaign_dir"), r.campaignDir);
  v.field(out("manifest_sha256"), r.manifestSha256);
  v.field(out("harness_copied"), r.harnessCopied);
  v.field(out("harness_path"), r.harnessPath);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::ReadTipsResult& r) {
  v.field(out("path").required(), r.path);
  v.field(out("exists").required(), r.exists);
  v.field(out("count"), r.count);
  v.field(out("headings"), r.headings);
  v.field(out("text"), r.text);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::BaselineResult& r) {
  v.field(out("round"), r.round);
  v.field(out("commit"), r.commit);
  objects(v, out("shapes"), r.shapes);
  object(v, out("aggregate"), r.aggregate);
  v.field(out("representative_shapes"), r.representativeShapes);
  v.field(out("frozen"), r.frozen);
  v.field(out("pairs"), r.pairs);
  v.field(out("aa_same_shapes"), r.aaSameShapes);
  v.field(out("aa_shapes"), r.aaShapes);
  v.field(out("margin_pct"), r.marginPct);
  v.field(out("harness"), r.harness);
  v.field(out("aa_sessions"), r.aaSessions);
  v.field(out("blocks_per_look"), r.blocksPerLook);
  v.field(out("benchmark_csv"), r.benchmarkCsv);
  v.field(out("summary_path"), r.summaryPath);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::BeginRoundResult& r) {
  v.field(out("round").required(), r.round);
  v.field(out("lineage_head"), r.lineageHead);
  v.field(out("declared_files"), r.declaredFiles);
  v.field(out("config_only"), r.configOnly);
  v.field(out("hypothesis_sha256"), r.hypothesisSha256);
  v.field(out("already_changed"), r.alreadyChanged);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::StepResult& r) {
  v.field(out("round"), r.round);
  v.field(out("step"), r.step);
  v.field(out("ok"), r.ok);
  v.field(out("skipped"), r.skipped);
  v.field(out("outcome"), r.outcome);
  v.field(out("exit_code"), r.exitCode);
  v.field(out("wall_ms"), r.wallMs);
  v.field(out("log_path"), r.logPath);
  v.field(out("log_tail"), r.logTail);
  describePhase(v, r.phase);
}

void describe(FieldVisitor& v, campaign::BenchResult& r) {
  v.field(out("round"), r.round);
  v.field(out("kind"), r.kind);
  v.field(out("pairs"), r.pairs);
  objects(v, out("shapes"), r.shapes);
  object(v, out("aggregate"), r.aggregate);
  v.field(out("preview"), r.preview);
  objects(v, out("reasons"), r.reasons);
  v.field(out("benchmark_csv"), r.benchmarkCsv);
  v.field(out("runs_dir"), r.runsDir);
  describePhase(v, r.phase);
}

void describe(FieldVisitor& v, campaign::ValidateResult& r) {
  v.field(out("round"), r.round);
  v.field(out("decision"), r.decision);
  objects(v, out("reasons"), r.reasons);
  v.field(out("checks"), r.checks);
  v.field(out("changed_files"), r.changedFiles);
  v.field(out("kind"), r.kind);
  v.field(out("pairs"), r.pairs);
  objects(v, out("shapes"), r.shapes);
  object(v, out("aggregate"), r.aggregate);
  v.field(out("flags"), r.flags);
  v.field(out("benchmark_csv"), r.benchmarkCsv);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::AcceptOrRevertResult& r) {
  v.field(out("round"), r.round);
  v.field(out("status"), r.status);
  v.field(out("commit"), r.commit);
  v.field(out("restored_files"), r.restoredFiles);
  v.field(out("summary_path"), r.summaryPath);
  v.field(out("consecutive_rollbacks"), r.consecutiveRollbacks);
  v.field(out("stagnation_review_required"), r.stagnationReviewRequired);
  objects(v, out("next"), r.next);
  describePhase(v, r.phase);
}

void describe(FieldVisitor& v, campaign::TerminationResult::Condition& c) {
  v.field(out("id").required(), c.id);
  v.field(out("met").required(), c.met);
  v.field(out("detail"), c.detail);
}

void describe(FieldVisitor& v, campaign::TerminationResult& r) {
  objects(v, out("conditions").required(), r.conditions);
  v.field(out("stop").required(), r.stop);
  v.field(out("decision"), r.decision);
  v.field(out("stagnation_review_required"), r.stagnationReviewRequired);
  v.field(out("stagnation_review_done"), r.stagnationReviewDone);
  objects(v, out("next"), r.next);
  describePhase(v, r.phase);
}

void describe(FieldVisitor& v, campaign::FinalAcceptanceResult& r) {
  v.field(out("tests_ok"), r.testsOk);
  v.field(out("test_log"), r.testLog);
  v.field(out("pairs"), r.pairs);
  objects(v, out("shapes"), r.shapes);
  object(v, out("aggregate"), r.aggregate);
  v.field(out("best_commit"), r.bestCommit);
  v.field(out("baseline_commit"), r.baselineCommit);
  describePhase(v, r.phase);
  describeNextTool(v, r.phase);
}

void describe(FieldVisitor& v, campaign::ReportResult& r) {
  v.field(out("report_path").required(), r.reportPath);
  v.field(out("files"), r.files);
  v.field(out("markdown"), r.markdown);
  describePhase(v, r.phase);
}

void describe(FieldVisitor& v, campaign::StatusResult& s) {
  v.field(out("campaign_dir"), s.campaignDir);
  v.field(out("campaign_name"), s.campaignName);
  v.field(out("repo"), s.repo);
  describePhase(v, s.phase);
  v.field(out("expectation"), s.expectation);
  v.field(out("last_round"), s.lastRound);
  v.field(out("open_round"), s.openRound);
  v.field(out("declared_files"), s.declaredFiles);
  v.field(out("best_round"), s.bestRound);
  v.field(out("best_commit"), s.bestCommit);
  v.field(out("baseline_commit"), s.baselineCommit);
  v.field(out("best_aggregate"), s.bestAggregate);
  v.field(out("baseline_aggregate"), s.baselineAggregate);
  v.field(out("metric"), s.metric);
  v.field(out("consecutive_rollbacks"), s.consecutiveRollbacks);
  v.field(out("accepted_rounds"), s.acceptedRounds);
  v.field(out("rolled_back_rounds"), s.rolledBackRounds);
  v.field(out("ledger_events"), s.ledgerEvents);
  v.field(out("ledger_ok"), s.ledgerOk);
  v.field(out("integrity"), s.integrity);
  v.field(out("problems"), s.problems);
  v.field(out("pending_step"), s.pendingStep);
  v.field(out("recovery"), s.recovery);
  v.field(out("last_validation"), s.lastValidation);
  objects(v, out("next"), s.next);
}

void describe(FieldVisitor& v, campaign::CampaignListing& c) {
  v.field(out("campaign_dir").required(), c.campaignDir);
  v.field(out("campaign_name"), c.campaignName);
  describePhase(v, c.phase, /*required=*/true);  // a listing always names it, unlike a status
  v.field(out("last_round"), c.lastRound);
  v.field(out("open_round"), c.openRound);
}

void describe(FieldVisitor& v, StatusOrListing& s) {
  describe(v, s.status);
  objects(v, out("campaigns"), s.campaigns);
}

void describe(FieldVisitor& v, campaign::TrendRowView& row) {
  v.field(out("round").required(), row.round);
  v.field(out("status").required(), row.status);
  v.field(out("description"), row.description);
  v.field(out("fwd_avg"), row.fwdAvg);
  v.field(out("fwd_peak"), row.fwdPeak);
  v.field(out("bwd_avg"), row.bwdAvg);
  v.field(out("bwd_peak"), row.bwdPeak);
  v.field(out("step_geomean"), row.stepGeomean);
  v.field(out("vs_baseline_step_pct"), row.vsBaselineStepPct);
  v.field(out("vs_baseline_fwd_pct"), row.vsBaselineFwdPct);
  v.field(out("vs_baseline_bwd_pct"), row.vsBaselineBwdPct);
  v.field(out("key_finding"), row.keyFinding);
}

void describe(FieldVisitor& v, campaign::TrendResult& r) {
  v.field(out("campaign_dir").required(), r.campaignDir);
  v.field(out("source"), r.source);
  objects(v, out("rows").required(), r.rows);
  v.field(out("rollback_streak"), r.rollbackStreak);
  v.field(out("current_best_round"), r.currentBestRound);
  v.field(out("current_best_score"), r.currentBestScore);
}

void describe(FieldVisitor& v, campaign::IneffectiveItem& i) {
  v.field(out("round").required(), i.round);
  v.field(out("direction").required(), i.direction);
  v.field(out("reason"), i.reason);
  v.field(out("modified_files"), i.modifiedFiles);
}

void describe(FieldVisitor& v, campaign::IneffectiveResult& r) {
  v.field(out("campaign_dir").required(), r.campaignDir);
  v.field(out("source"), r.source);
  objects(v, out("items").required(), r.items);
}

void describe(FieldVisitor& v, campaign::BestSummaryResult& r) {
  v.field(out("campaign_dir").required(), r.campaignDir);
  v.field(out("round").required(), r.round);
  v.field(out("source").omittedWhenEmpty(), r.source);
  v.field(out("body").required(), r.body);
  v.field(out("note").omittedWhenEmpty(), r.note);
}

void describe(FieldVisitor& v, campaign::TipsQueryResult& r) {
  v.field(out("path").omittedWhenEmpty(), r.path);
  objects(v, out("items").required(), r.items, [](FieldVisitor& iv, std::pair<std::string, std::string>& item) {
    iv.field(out("heading").required(), item.first);
    iv.field(out("body").required(), item.second);
  });
  long long count = static_cast<long long>(r.items.size());  // derived, so written, never read
  v.field(out("count"), count);
  v.field(out("note").omittedWhenEmpty(), r.note);
}

void describe(FieldVisitor& v, campaign::AppendTipResult& r) {
  v.field(out("path").required(), r.path);
  v.field(out("ok").required(), r.ok);
}

}  // namespace kopt::tools
