// The records each ledger event implies, written through the store's writers. Everything here is a
// pure function of the event payloads (no clock, no working tree), so replaying the ledger after a
// crash writes the same bytes, and the markdown appends are keyed on the event's seq so a replay
// adds exactly the missing blocks.
#include <algorithm>
#include <system_error>

#include "campaign/engine_record_json.h"
#include "campaign/engine_session.h"
#include "campaign/measured_record.h"
#include "campaign/records/optimize_log.h"
#include "campaign/records/round_json.h"
#include "campaign/records/round_summary.h"
#include "campaign/records/trend_table.h"
#include "campaign/rolled_back_rounds.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;
using namespace records;

namespace {

std::optional<RoundRecord> recordOf(const RoundLog& log, int round) {
  const RoundRecord* r = log.record(round);
  return r ? std::optional<RoundRecord>(*r) : std::nullopt;
}

TrendRow trendRow(const OpenCampaign& s, const RoundRecord& r, const std::optional<RoundRecord>& baseline) {
  TrendRow row;
  row.round = r.number;
  row.status = r.status;
  row.description = r.description;
  row.values = trendValues(s.manifest, r);
  row.keyFinding = r.keyFinding;
  if (r.status == RoundStatus::Baseline || !baseline) return row;
  const auto base = trendValues(s.manifest, *baseline);
  const auto headers = trendColumnsFor(s.manifest.schema).valueHeaders;
  for (std::size_t i = 0; i < headers.size() && i < row.values.size() && i < base.size(); ++i) {
    const std::string& h = headers[i];
    std::string key;
    if (h.find("Combined") != std::string::npos) key = "step";
    else if (h.find("Peak") != std::string::npos) continue;
    else if (util::startsWith(h, "Fwd ")) key = "fwd";
    else if (util::startsWith(h, "Bwd ")) key = "bwd";
    else key = h.substr(0, h.rfind(' '));
    std::optional<double> pct;
    if (row.values[i] && base[i] && *base[i] > 0) pct = 100.0 * (*row.values[i] / *base[i] - 1.0);
    row.vsBaseline.push_back({key, pct});
  }
  // The contract's order: step first.
  std::stable_sort(row.vsBaseline.begin(), row.vsBaseline.end(),
                   [](const VsBaselineTerm& a, const VsBaselineTerm& b) { return a.key == "step" && b.key != "step"; });
  return row;
}

CurrentBest currentBest(const RoundLog& log, int afterRound) {
  CurrentBest best;
  const std::optional<RoundRecord> baseline = recordOf(log, 1);
  if (const RoundRecord* bestRecord = log.bestRecord()) {
    best.round = bestRecord->number;
    best.commit = bestRecord->commit;
    best.metric = bestRecord->aggregate.metric;
    best.value = bestRecord->aggregate.value;
    if (baseline && baseline->aggregate.value && *baseline->aggregate.value > 0 && best.value)
      best.vsBaselinePct = 100.0 * (*best.value / *baseline->aggregate.value - 1.0);
  }
  best.asOfRound = "after round-" + std::to_string(afterRound);
  return best;
}

// The same rounds list_ineffective_directions lists (rolled_back_rounds.h).
std::vector<IneffectiveDirection> ineffective(const RoundLog& log) {
  std::vector<IneffectiveDirection> out;
  for (auto& r : rolledBackRounds(log, DirectionOutcome::Ineffective)) {
    out.push_back({r.round, std::move(r.direction), std::move(r.reason), std::move(r.modifiedFiles)});
  }
  return out;
}

TerminationRecord terminationRecord(const TerminationChecked& e) {
  TerminationRecord rec;
  rec.afterRound = static_cast<int>(e.afterRound);
  for (const auto& c : e.conditions) rec.conditions.push_back({c.id, c.met, c.detail});
  rec.stop = e.stop;
  rec.decision = e.decision;
  rec.stagnationReview = e.stagnationReview;
  for (const auto& d : e.directions) rec.stagnationDirections.push_back({d.text, d.category, false});
  return rec;
}

FinalReportRecord finalReportRecord(const ReportWritten& e) {
  FinalReportRecord f;
  f.metric = e.metric;
  f.baselineValue = e.baselineValue;
  f.bestValue = e.bestValue;
  f.improvementPct = e.improvementPct;
  f.bestRound = static_cast<int>(e.bestRound);
  f.acceptedRounds = static_cast<int>(e.acceptedRounds);
  f.rolledBackRounds = static_cast<int>(e.rolledBackRounds);
  f.totalRounds = static_cast<int>(e.totalRounds);
  f.effectiveDirections = e.effectiveDirections;
  f.ineffectiveDirections = e.ineffectiveDirections;
  f.rolledBackWithProvenShape = e.rolledBackWithProvenShape;
  f.nextSteps = e.nextSteps;
  f.realTrainingAudit = e.realTrainingAudit.value_or("");
  f.finalAcceptance = e.finalAcceptance;
  f.reportPath = e.reportPath;
  return f;
}

void writeRoundFiles(const OpenCampaign& s, const RoundRecord& r) {
  const RoundPaths rp = s.paths.round(r.number);
  rp.createLayout();
  writeRoundSummary(rp.summary, r);
  writeDecisionJson(rp.decision, r);
}

}  // namespace

void writeEventRecords(OpenCampaign& s, const TypedEvent& e) {
  const RoundLog log(s.events, e.seq);  // the records are a function of the ledger up to `e`
  const auto trendColumns = trendColumnsFor(s.manifest.schema);
  if (const auto* prepared = e.as<EnvironmentPrepared>()) {
    appendSection(s.paths.optimizeLog, s.name,
                  renderBasicInformation(s.manifest, s.name, s.paths.root.string(), prepared->branch.value_or("none")),
                  e.seq);
  } else if (const auto* baseline = e.as<BaselineRecorded>()) {
    const RoundRecord& r = baseline->record;
    writeRoundFiles(s, r);
    appendTrendRow(s.paths.performanceTrend, trendColumns, s.name, trendRow(s, r, std::nullopt), e.seq);
    std::string block = renderBaseline(r) + renderHistoryHeading() + renderHistoryBlock(r) +
                        renderCurrentBest(currentBest(log, 1));
    appendSection(s.paths.optimizeLog, s.name, block, e.seq);
  } else if (const auto* begun = e.as<RoundBegun>()) {
    const RoundPaths rp = s.paths.round(e.round.value_or(0));
    std::error_code ec;
    if (!fs::exists(rp.hypothesis, ec) && begun->hypothesis) {
      rp.createLayout();
      writeHypothesisJson(rp.hypothesis, *begun->hypothesis, e.round.value_or(0));
    }
  } else if (const auto* decided = e.as<RoundDecided>()) {
    const RoundRecord& r = decided->record;
    writeRoundFiles(s, r);
    appendTrendRow(s.paths.performanceTrend, trendColumns, s.name, trendRow(s, r, recordOf(log, 1)), e.seq);
    std::string block = renderHistoryBlock(r) + renderCurrentBest(currentBest(log, r.number));
    if (r.status == RoundStatus::RolledBack) block += renderIneffectiveDirections(ineffective(log), r.number);
    appendSection(s.paths.optimizeLog, s.name, block, e.seq);
  } else if (const auto* term = e.as<TerminationChecked>()) {
    const TerminationRecord rec = terminationRecord(*term);
    std::string block = renderTerminationCheck(rec);
    if (!rec.stagnationDirections.empty()) block += renderDirectionsToTry(rec.stagnationDirections, rec.afterRound);
    appendSection(s.paths.optimizeLog, s.name, block, e.seq);
  } else if (const auto* report = e.as<ReportWritten>()) {
    appendSection(s.paths.optimizeLog, s.name, renderFinalReport(finalReportRecord(*report)), e.seq);
  }
}

}  // namespace kopt::campaign::detail
