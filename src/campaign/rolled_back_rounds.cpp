#include "campaign/rolled_back_rounds.h"

#include "measure/verdict.h"
#include "util/text.h"

namespace kopt::campaign {

std::string ProvenShape::describe() const {
  auto pct = [](const std::optional<double>& v) { return v ? util::formatSignedPercent(*v, 2) : std::string("n/a"); };
  std::string text = label + " " + measure::toString(measure::Verdict::Improved) + " " + pct(gainPct);
  if (ciLowPct && ciHighPct) text += " (CI " + pct(ciLowPct) + " .. " + pct(ciHighPct) + ")";
  return text;
}

std::vector<ProvenShape> provenFaster(const records::RoundRecord& record) {
  std::vector<ProvenShape> out;
  for (const auto& s : record.results) {
    if (s.check != "PASS" || measure::verdictFromString(s.verdict) != measure::Verdict::Improved) continue;
    out.push_back({s.label, s.deltaVsBestPct, s.ciLowPct, s.ciHighPct});
  }
  return out;
}

std::vector<RolledBackRound> rolledBackRounds(const RoundLog& log) {
  std::vector<RolledBackRound> out;
  for (const RoundDecided* decided : log.decisions()) {
    if (decided->status != RoundStatus::RolledBack) continue;
    const records::RoundRecord& r = decided->record;
    RolledBackRound b;
    b.round = r.number;
    b.direction = r.hypothesis ? r.hypothesis->change : r.description;
    b.reason = r.decisionReason;
    if (r.rollback && !r.rollback->rootCause.empty()) b.reason += "; root cause: " + r.rollback->rootCause;
    b.modifiedFiles = decided->restoredFiles;
    if (b.modifiedFiles.empty() && r.hypothesis) b.modifiedFiles = r.hypothesis->files;
    b.provenFaster = provenFaster(r);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<RolledBackRound> rolledBackRounds(const RoundLog& log, DirectionOutcome outcome) {
  std::vector<RolledBackRound> out;
  for (auto& r : rolledBackRounds(log)) {
    if (r.outcome() == outcome) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace kopt::campaign
