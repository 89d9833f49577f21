#include "campaign/records/optimize_log.h"

#include "campaign/records/results_table.h"
#include "campaign/records/trend_table.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::records {

namespace {

const char* const kDash = "\xE2\x80\x94";

std::string code(const std::string& s) {
  if (s.empty()) return "none";
  std::string cell = escapeCell(s);
  return cell.find('`') == std::string::npos ? "`" + cell + "`" : cell;
}

std::string orNone(const std::string& s) { return s.empty() ? "none" : escapeCell(s); }

// Prose from the agent: one line per bullet, never a fake heading.
std::string prose(const std::string& s) {
  std::string t = util::trim(util::sanitizeUtf8(s));
  if (t.empty()) return "(none given)";
  t = util::replaceAll(t, "\r", "");
  return util::replaceAll(t, "\n", " ");
}

std::string pct(std::optional<double> v) {
  return v ? util::formatSignedPercent(*v, 3) : std::string("n/a");
}

std::string row(const std::string& field, const std::string& value) {
  return "| " + field + " | " + value + " |\n";
}

}  // namespace

std::string renderLogTitle(const std::string& campaign) {
  return "# Optimization Log: " + campaign + "\n\n";
}

std::string renderBasicInformation(const Manifest& m, const std::string& campaign,
                                   const std::string& campaignDir, const std::string& branch) {
  std::string out = "## Basic Information\n\n| Field | Value |\n|---|---|\n";
  out += row("Campaign", escapeCell(campaign));
  out += row("Campaign directory", code(campaignDir));
  out += row("Operator", escapeCell(m.targetOp));
  out += row("Backend", std::string(toString(m.targetBackend)) + " (" + toString(m.targetLang) + ")");
  out += row("GPU", escapeCell(m.targetGpu));
  out += row("Execution mode", toString(m.executionMode));
  out += row("Project skill", orNone(m.projectSkill));
  out += row("Primary metric", escapeCell(m.primaryMetric.column));
  out += row("Performance target", m.performanceTarget ? escapeCell(m.performanceTarget->text) : "none");
  out += row("Target shapes", m.targetShapes.all ? "all" : escapeCell(util::join(m.targetShapes.labels, ", ")));
  std::vector<std::string> sources;
  for (const auto& k : m.kernelSource) sources.push_back(code(k));
  out += row("Kernel source", util::join(sources, ", "));
  out += row("Test command", code(m.testCommand.text));
  out += row("Benchmark command", code(m.benchmarkCommand.text));
  out += row("Quick command", code(m.quickCommand.text));
  out += row("Build command", code(m.buildCommand.text));
  out += row("Profile command", code(m.profileCommand.text));
  out += row("Git commit", m.gitCommit ? "yes" : "no");
  out += row("Git branch", branch.empty() ? "none" : code(branch));
  out += row("Base branch", orNone(m.baseBranch));
  out += row("Max iterations", m.maxIterations ? std::to_string(*m.maxIterations) : "none");
  out += row("Max duration", m.maxDuration ? escapeCell(m.maxDuration->text) : "none");
  out += row("Created", orNone(m.created));
  return out + "\n";
}

std::string renderBaseline(const RoundRecord& b) {
  std::string out = "## Baseline\n\n";
  out += "- Round: round-" + std::to_string(b.number) + "\n";
  out += "- Validation: " + (b.validation.empty() ? std::string("full") : b.validation) + "\n";
  if (!b.commit.empty()) out += "- Commit: `" + b.commit + "`\n";
  out += "- Result: " + b.aggregate.metric + ": " + formatMetric(b.aggregate.value) + " (geomean over " +
         std::to_string(b.aggregate.passCount) + "/" + std::to_string(b.aggregate.shapeCount) +
         " PASS shapes)\n";
  if (!b.flags.empty()) out += "- Flags: " + prose(util::join(b.flags, "; ")) + "\n";
  out += "\n" + renderResultsTable(b.results, b.aggregate.metric, false) + "\n";
  return out;
}

std::string renderHistoryHeading() { return "## Optimization History\n\n"; }

std::string renderHistoryBlock(const RoundRecord& r) {
  std::string out = "### round-" + std::to_string(r.number) + " " + kDash + " " + toString(r.status) + "\n\n";
  if (!r.timestamp.empty()) out += "- Time: " + r.timestamp + "\n";
  if (!r.description.empty()) out += "- Description: " + prose(r.description) + "\n";
  if (r.hypothesis) {
    out += "- Hypothesis: " + prose(r.hypothesis->statement) + "\n";
    out += "- Change: " + prose(r.hypothesis->change) + "\n";
    out += std::string("- Rule-11 bucket: ") + toString(r.hypothesis->bucket) + " (" +
           describe(r.hypothesis->bucket) + ")\n";
    out += "- Files: " + (r.hypothesis->files.empty() ? std::string("(config only)")
                                                      : util::join(r.hypothesis->files, ", ")) + "\n";
  }
  out += "- Result: " + r.aggregate.metric + ": " + formatMetric(r.aggregate.value) + " (vs best " +
         pct(r.aggregate.deltaVsBestPct) + ", vs baseline " + pct(r.aggregate.deltaVsBaselinePct) +
         "; " + std::to_string(r.aggregate.passCount) + "/" + std::to_string(r.aggregate.shapeCount) +
         " PASS)\n";
  out += std::string("- Decision: ") + toString(r.status) +
         (r.decisionReason.empty() ? "" : " " + std::string(kDash) + " " + prose(r.decisionReason)) + "\n";
  if (!r.gateVerdict.empty()) out += "- Gate verdict: " + prose(r.gateVerdict) + "\n";
  if (!r.flags.empty()) out += "- Flags: " + prose(util::join(r.flags, "; ")) + "\n";
  if (!r.commit.empty()) {
    out += std::string(r.status == RoundStatus::RolledBack ? "- Restored to: `" : "- Commit: `") +
           r.commit + "`\n";
  }
  if (!r.keyFinding.empty()) out += "- Key finding: " + prose(r.keyFinding) + "\n";
  out += "- Details: rounds/round-" + std::to_string(r.number) + "/summary.md\n\n";
  return out;
}

std::string renderCurrentBest(const CurrentBest& b) {
  std::string out = "## Current Best";
  if (!b.asOfRound.empty()) out += " (" + b.asOfRound + ")";
  out += "\n\n- Round: round-" + std::to_string(b.round) + "\n";
  if (!b.commit.empty()) out += "- Commit: `" + b.commit + "`\n";
  out += "- " + b.metric + ": " + formatMetric(b.value) + " (vs baseline " + pct(b.vsBaselinePct) + ")\n\n";
  return out;
}

std::string renderDirectionsToTry(const std::vector<DirectionToTry>& directions, int afterRound) {
  std::string out = "## Directions to Try (after round-" + std::to_string(afterRound) + ")\n\n";
  if (directions.empty()) out += "_None recorded._\n";
  for (const auto& d : directions) {
    out += std::string("- [") + (d.done ? "x" : " ") + "] " + prose(d.text);
    if (!d.category.empty()) out += " (" + prose(d.category) + ")";
    out += "\n";
  }
  return out + "\n";
}

std::string renderIneffectiveDirections(const std::vector<IneffectiveDirection>& items, int afterRound) {
  std::string out = "## Verified Ineffective Directions (after round-" + std::to_string(afterRound) + ")\n\n";
  if (items.empty()) return out + "_None yet._\n\n";
  out += "| Direction | Round | Reason | Files |\n|---|---|---|---|\n";
  for (const auto& i : items) {
    out += "| " + escapeCell(i.direction) + " | round-" + std::to_string(i.round) + " | " +
           escapeCell(i.reason) + " | " + escapeCell(util::join(i.modifiedFiles, ", ")) + " |\n";
  }
  return out + "\n";
}

std::string renderTerminationCheck(const TerminationRecord& t) {
  std::string out = "## Termination Check (after round-" + std::to_string(t.afterRound) + ")\n\n";
  out += "| Condition | Met | Detail |\n|---|---|---|\n";
  for (const auto& c : t.conditions) {
    out += "| " + escapeCell(c.id) + " | " + (c.met ? "yes" : "no") + " | " + escapeCell(c.detail) + " |\n";
  }
  out += "\n- Decision: " + prose(t.decision.empty() ? (t.stop ? "stop" : "continue") : t.decision) + "\n";
  if (t.stagnationReview) {
    out += "- Stagnation review: required (two consecutive rollbacks)\n";
    for (const auto& d : t.stagnationDirections) {
      out += "  - [ ] " + prose(d.text) + (d.category.empty() ? "" : " (" + prose(d.category) + ")") + "\n";
    }
  }
  return out + "\n";
}

std::string renderFinalReport(const FinalReportRecord& r) {
  std::string out = "## Final Report\n\n";
  out += "- Primary metric: " + prose(r.metric) + "\n";
  out += "- Baseline: " + formatMetric(r.baselineValue) + "; best: " + formatMetric(r.bestValue) +
         " (round-" + std::to_string(r.bestRound) + "); improvement: " + pct(r.improvementPct) + "\n";
  out += "- Rounds: " + std::to_string(r.totalRounds) + " total, " + std::to_string(r.acceptedRounds) +
         " accepted, " + std::to_string(r.rolledBackRounds) + " rolled back\n";
  auto list = [&](const char* title, const std::vector<std::string>& items) {
    out += std::string("\n**") + title + "**\n\n";
    if (items.empty()) out += "- (none)\n";
    for (const auto& i : items) out += "- " + prose(i) + "\n";
  };
  list("Effective directions", r.effectiveDirections);
  list("Ineffective directions", r.ineffectiveDirections);
  if (!r.rolledBackWithProvenShape.empty()) list("Rolled back with a shape proven faster", r.rolledBackWithProvenShape);
  list("Next steps", r.nextSteps);
  out += "\n**Real-training audit**\n\n" + prose(r.realTrainingAudit) + "\n";
  out += "\n**Final acceptance**\n\n" + prose(r.finalAcceptance) + "\n";
  if (!r.reportPath.empty()) out += "\nFull report: " + code(r.reportPath) + "\n";
  return out + "\n";
}

void appendSection(const std::filesystem::path& optimizeMd, const std::string& campaign,
                   const std::string& block, unsigned long long seq) {
  std::string marker = util::eventMarker(seq);
  std::string existing = util::readFileIfExists(optimizeMd).value_or("");
  std::string text = existing.empty() ? renderLogTitle(campaign) : std::string();
  text += marker + "\n" + block;
  if (!text.empty() && text.back() != '\n') text += "\n";
  util::appendBlockOnce(optimizeMd, marker, text);
}

}  // namespace kopt::campaign::records
