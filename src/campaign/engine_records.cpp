// The records each ledger event implies, written through the store's writers. Everything here is a
// pure function of the event payloads (no clock, no working tree), so replaying the ledger after a
// crash writes the same bytes, and the markdown appends are keyed on the event's seq so a replay
// adds exactly the missing blocks.
#include <algorithm>
#include <system_error>

#include "campaign/engine_record_json.h"
#include "campaign/engine_session.h"
#include "campaign/engine_support.h"
#include "campaign/records/optimize_log.h"
#include "campaign/records/round_json.h"
#include "campaign/records/round_summary.h"
#include "campaign/records/trend_table.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;
using namespace records;

namespace {

std::vector<const LedgerEvent*> eventsUpTo(const Session& s, std::uint64_t seq) {
  std::vector<const LedgerEvent*> out;
  for (const auto& e : s.events) {
    if (e.seq <= seq) out.push_back(&e);
  }
  return out;
}

std::optional<RoundRecord> recordAt(const std::vector<const LedgerEvent*>& events, int round) {
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    const LedgerEvent& e = **it;
    if (e.round == round && (e.type == ev::kBaselineRecorded || e.type == ev::kRoundDecided) &&
        e.payload.contains("record")) {
      return roundRecordFromJson(e.payload["record"]);
    }
  }
  return std::nullopt;
}

TrendRow trendRow(const Session& s, const RoundRecord& r, const std::optional<RoundRecord>& baseline) {
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

CurrentBest currentBest(const std::vector<const LedgerEvent*>& events, int afterRound) {
  CurrentBest best;
  std::optional<RoundRecord> bestRecord;
  std::optional<RoundRecord> baseline = recordAt(events, 1);
  for (const LedgerEvent* e : events) {
    if (e->type == ev::kBaselineRecorded || (e->type == ev::kRoundDecided &&
                                             util::startsWith(e->payload.value("status", ""), "ACCEPTED"))) {
      bestRecord = roundRecordFromJson(e->payload["record"]);
    }
  }
  if (bestRecord) {
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

std::vector<IneffectiveDirection> ineffective(const std::vector<const LedgerEvent*>& events) {
  std::vector<IneffectiveDirection> out;
  for (const LedgerEvent* e : events) {
    if (e->type != ev::kRoundDecided || util::startsWith(e->payload.value("status", ""), "ACCEPTED")) continue;
    RoundRecord r = roundRecordFromJson(e->payload["record"]);
    IneffectiveDirection d;
    d.round = r.number;
    d.direction = r.hypothesis ? r.hypothesis->change : r.description;
    d.reason = r.rollback && !r.rollback->rootCause.empty() ? r.decisionReason + "; root cause: " + r.rollback->rootCause
                                                            : r.decisionReason;
    if (r.hypothesis) d.modifiedFiles = r.hypothesis->files;
    out.push_back(std::move(d));
  }
  return out;
}

void writeRoundFiles(const Session& s, const RoundRecord& r) {
  const RoundPaths rp = s.paths.round(r.number);
  rp.createLayout();
  writeRoundSummary(rp.summary, r);
  writeDecisionJson(rp.decision, r);
}

}  // namespace

void writeEventRecords(Session& s, const LedgerEvent& e) {
  const auto events = eventsUpTo(s, e.seq);
  const std::string& t = e.type;
  const auto trendColumns = trendColumnsFor(s.manifest.schema);
  if (t == ev::kEnvironmentPrepared) {
    const std::string branch = e.payload.contains("branch") && e.payload["branch"].is_string()
                                   ? e.payload["branch"].get<std::string>()
                                   : std::string("none");
    appendSection(s.paths.optimizeLog, s.name,
                  renderBasicInformation(s.manifest, s.name, s.paths.root.string(), branch), e.seq);
  } else if (t == ev::kBaselineRecorded) {
    RoundRecord r = roundRecordFromJson(e.payload["record"]);
    writeRoundFiles(s, r);
    appendTrendRow(s.paths.performanceTrend, trendColumns, s.name, trendRow(s, r, std::nullopt), e.seq);
    std::string block = renderBaseline(r) + renderHistoryHeading() + renderHistoryBlock(r) +
                        renderCurrentBest(currentBest(events, 1));
    appendSection(s.paths.optimizeLog, s.name, block, e.seq);
  } else if (t == ev::kRoundBegun) {
    const RoundPaths rp = s.paths.round(e.round.value_or(0));
    std::error_code ec;
    if (!fs::exists(rp.hypothesis, ec) && e.payload.contains("hypothesis")) {
      rp.createLayout();
      writeHypothesisJson(rp.hypothesis, hypothesisFromJsonLenient(e.payload["hypothesis"]), e.round.value_or(0));
    }
  } else if (t == ev::kRoundDecided) {
    RoundRecord r = roundRecordFromJson(e.payload["record"]);
    writeRoundFiles(s, r);
    appendTrendRow(s.paths.performanceTrend, trendColumns, s.name, trendRow(s, r, recordAt(events, 1)), e.seq);
    std::string block = renderHistoryBlock(r) + renderCurrentBest(currentBest(events, r.number));
    if (r.status == RoundStatus::RolledBack) block += renderIneffectiveDirections(ineffective(events), r.number);
    appendSection(s.paths.optimizeLog, s.name, block, e.seq);
  } else if (t == ev::kTerminationChecked) {
    TerminationRecord rec;
    rec.afterRound = e.payload.value("after_round", 0);
    for (const auto& c : e.payload.value("conditions", nlohmann::json::array())) {
      rec.conditions.push_back({c.value("id", ""), c.value("met", false), c.value("detail", "")});
    }
    rec.stop = e.payload.value("stop", false);
    rec.decision = e.payload.value("decision", "");
    rec.stagnationReview = e.payload.value("stagnation_review", false);
    for (const auto& d : e.payload.value("directions", nlohmann::json::array())) {
      rec.stagnationDirections.push_back({d.value("text", ""), d.value("category", ""), false});
    }
    std::string block = renderTerminationCheck(rec);
    if (!rec.stagnationDirections.empty()) block += renderDirectionsToTry(rec.stagnationDirections, rec.afterRound);
    appendSection(s.paths.optimizeLog, s.name, block, e.seq);
  } else if (t == ev::kReportWritten) {
    const auto& p = e.payload;
    FinalReportRecord f;
    f.metric = p.value("metric", "");
    if (p.contains("baseline_value") && p["baseline_value"].is_number()) f.baselineValue = p["baseline_value"].get<double>();
    if (p.contains("best_value") && p["best_value"].is_number()) f.bestValue = p["best_value"].get<double>();
    if (p.contains("improvement_pct") && p["improvement_pct"].is_number()) f.improvementPct = p["improvement_pct"].get<double>();
    f.bestRound = p.value("best_round", 1);
    f.acceptedRounds = p.value("accepted_rounds", 0);
    f.rolledBackRounds = p.value("rolled_back_rounds", 0);
    f.totalRounds = p.value("total_rounds", 0);
    f.effectiveDirections = p.value("effective_directions", std::vector<std::string>{});
    f.ineffectiveDirections = p.value("ineffective_directions", std::vector<std::string>{});
    f.nextSteps = p.value("next_steps", std::vector<std::string>{});
    f.realTrainingAudit = p.value("real_training_audit", "");
    f.finalAcceptance = p.value("final_acceptance", "");
    f.reportPath = p.value("report_path", "");
    appendSection(s.paths.optimizeLog, s.name, renderFinalReport(f), e.seq);
  }
}

}  // namespace kopt::campaign::detail
