#include "campaign/records/round_summary.h"

#include "campaign/records/results_table.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::records {

namespace {

const char* const kDash = "\xE2\x80\x94";

// Multi-line prose from the agent, kept as paragraphs, but unable to forge a section heading
// or an event marker.
std::string paragraph(const std::string& s) {
  std::string t = util::trim(util::sanitizeUtf8(s));
  if (t.empty()) return "(none given)\n";
  std::string out;
  for (auto& line : util::splitLines(t)) {
    std::string trimmed = util::trim(line);
    if (!trimmed.empty() && trimmed[0] == '#') line = "\\" + trimmed;
    out += util::replaceAll(line, "<!--", "&lt;!--") + "\n";
  }
  return out;
}

std::string oneLine(const std::string& s) {
  std::string t = util::trim(util::sanitizeUtf8(s));
  if (t.empty()) return "(none given)";
  return util::replaceAll(util::replaceAll(t, "\r", ""), "\n", " ");
}

std::string pct(std::optional<double> v) {
  return v ? util::formatSignedPercent(*v, 3) : std::string("n/a");
}

}  // namespace

std::string renderRoundSummary(const RoundRecord& r) {
  std::string out = "# Round " + std::to_string(r.number) + " " + kDash + " " + toString(r.status) + "\n\n";
  std::vector<std::string> meta;
  if (!r.campaign.empty()) meta.push_back("Campaign: " + oneLine(r.campaign));
  if (!r.timestamp.empty()) meta.push_back("Time: " + r.timestamp);
  if (!r.validation.empty()) meta.push_back("Validation: " + r.validation);
  if (!meta.empty()) out += util::join(meta, " \xC2\xB7 ") + "\n\n";
  if (!r.description.empty()) out += oneLine(r.description) + "\n\n";

  out += "## Hypothesis\n\n";
  if (r.hypothesis) {
    const Hypothesis& h = *r.hypothesis;
    out += paragraph(h.statement) + "\n";
    out += "- Expected effect: " + std::string(toString(h.expected.direction)) + " " +
           oneLine(h.expected.metric) + " by about " + util::formatSignedPercent(h.expected.sizePct, 1).substr(1) + "\n";
    out += std::string("- Rule-11 bucket: ") + toString(h.bucket) + " (" + describe(h.bucket) + ")\n";
    if (!h.bottleneck.empty()) out += "- Bottleneck: " + oneLine(h.bottleneck) + "\n";
    if (!h.risk.empty()) out += "- Risk: " + oneLine(h.risk) + "\n";
  } else {
    out += "Baseline measurement of the unmodified kernel; no hypothesis.\n";
  }

  out += "\n## Single change\n\n";
  if (r.hypothesis) {
    out += paragraph(r.hypothesis->change) + "\n";
    out += "- Files: " + (r.hypothesis->files.empty() ? std::string("none")
                                                      : util::join(r.hypothesis->files, ", ")) + "\n";
    out += std::string("- Config only: ") + (r.hypothesis->configOnly ? "yes" : "no") + "\n";
  } else {
    out += "None (baseline).\n";
  }
  if (!r.lineageHead.empty()) out += "- Lineage head: `" + r.lineageHead + "`\n";

  out += "\n## Results\n\n";
  out += renderResultsTable(r.results, r.aggregate.metric, r.status != RoundStatus::Baseline);

  const Aggregate& a = r.aggregate;
  out += "\n## Aggregate\n\n";
  out += "- " + a.metric + ": " + formatMetric(a.value) + " (geomean over " + std::to_string(a.passCount) +
         "/" + std::to_string(a.shapeCount) + " PASS shapes)\n";
  if (r.status != RoundStatus::Baseline) {
    out += "- Current best before this round: " + formatMetric(a.bestValue) + " (" + pct(a.deltaVsBestPct) + ")\n";
    out += "- Baseline: " + formatMetric(a.baselineValue) + " (" + pct(a.deltaVsBaselinePct) + ")\n";
  }

  out += "\n## Decision\n\n**" + std::string(toString(r.status)) + "**";
  if (!r.decisionReason.empty()) out += " " + std::string(kDash) + " " + oneLine(r.decisionReason);
  out += "\n\n";
  if (!r.gateVerdict.empty()) out += "- Gate verdict: " + oneLine(r.gateVerdict) + "\n";
  for (const auto& f : r.flags) out += "- Flag: " + oneLine(f) + "\n";
  if (!r.commit.empty()) {
    out += std::string(r.status == RoundStatus::RolledBack ? "- Restored to: `" : "- Commit: `") + r.commit + "`\n";
  }

  out += "\n## Attribution\n\n" + paragraph(r.attribution);
  out += "\n## Next direction\n\n" + paragraph(r.nextDirection);

  if (r.status == RoundStatus::RolledBack) {
    out += "\n## Rollback Analysis\n\n";
    if (r.rollback) {
      out += "- Change: " + oneLine(r.rollback->change) + "\n";
      out += "- Expected: " + oneLine(r.rollback->expected) + "\n";
      out += "- Actual: " + oneLine(r.rollback->actual) + "\n";
      out += "- Root cause: " + oneLine(r.rollback->rootCause) + "\n";
      out += "- Lesson: " + oneLine(r.rollback->lesson) + "\n";
    } else {
      out += "(none given)\n";
    }
  }

  out += "\n## Real-training transfer check\n\n";
  if (r.transfer) {
    const TransferCheck& t = *r.transfer;
    out += "- Bucket: " + oneLine(t.bucket) + "\n";
    out += "- Cache key: " + oneLine(t.cacheKey) + "\n";
    out += "- id() audit: " + oneLine(t.idAudit) + "\n";
    out += "- 4-step hit-rate trace: " + oneLine(t.hitRateTrace) + "\n";
    out += "- Skew robustness: " + oneLine(t.skewRobustness) + "\n";
    out += "- Benchmark gain: " + oneLine(t.benchmarkGain) + "\n";
    out += "- Estimated real gain: " + oneLine(t.estimatedRealGain) + "\n";
    out += "- Decision: " + oneLine(t.decision) + "\n";
  } else if (r.status == RoundStatus::Baseline) {
    out += "Not applicable (baseline).\n";
  } else {
    out += "(none given)\n";
  }
  return out;
}

void writeRoundSummary(const std::filesystem::path& summaryMd, const RoundRecord& round) {
  util::writeFileAtomic(summaryMd, renderRoundSummary(round));
}

}  // namespace kopt::campaign::records
