#include "campaign/report/report_markdown.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "campaign/report/real_training_audit.h"
#include "campaign/report/svg_support.h"
#include "util/text.h"

namespace kopt::campaign::report {

namespace {

using svg::fixed;
using svg::signedPercent;

// Enough digits for both 0.0042 GFLOPS on a CPU demo and 812.4 TFLOPS on a GPU.
std::string value(double v) {
  if (!std::isfinite(v)) return "n/a";
  double a = std::fabs(v);
  int decimals = a >= 100 ? 2 : a >= 1 ? 3 : a >= 0.01 ? 4 : 6;
  return fixed(v, decimals);
}

std::string withUnit(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "n/a";
  return unit.empty() ? value(v) : value(v) + " " + unit;
}

// A table cell: no line breaks, pipes escaped, never empty (an empty cell shifts some renderers).
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else out += c;
  }
  return out.empty() ? "-" : out;
}

// A line of prose from user data: one line, so it cannot start a heading or break a list.
std::string inlineText(const std::string& text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

// Long reasons (the gate lists every shape) belong in the round's summary; the report's tables
// keep the first clauses. Cuts at a "; " or a space, on a UTF-8 boundary, and says so.
std::string brief(const std::string& text, size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  size_t cut = text.rfind("; ", maxBytes);
  if (cut == std::string::npos || cut < maxBytes / 2) cut = text.rfind(' ', maxBytes);
  if (cut == std::string::npos || cut < maxBytes / 2) {
    cut = maxBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  return text.substr(0, cut) + " \xE2\x80\xA6 (see the round summary)";
}

constexpr size_t kReasonChars = 180;

std::string roundName(int number) { return "round-" + std::to_string(number); }

double observedChange(const RoundRecord& round, double bestBefore, bool higherIsBetter) {
  if (std::isfinite(round.observedPct)) return round.observedPct;
  return gainPct(round.aggregate, bestBefore, higherIsBetter);
}

struct Counts {
  int attempted = 0, accepted = 0, withNote = 0, rolledBack = 0;
};

Counts countRounds(const CampaignHistory& h) {
  Counts c;
  for (const auto& r : h.rounds) {
    if (r.status == RoundStatus::Baseline) continue;
    ++c.attempted;
    if (r.status == RoundStatus::Accepted) ++c.accepted;
    if (r.status == RoundStatus::AcceptedWithNote) {
      ++c.accepted;
      ++c.withNote;
    }
    if (r.status == RoundStatus::RolledBack) ++c.rolledBack;
  }
  return c;
}

// The best aggregate before each round (what the round was compared against).
std::map<int, double> bestBeforeEachRound(const CampaignHistory& h) {
  std::map<int, double> out;
  double best = kNaN;
  for (const auto& r : h.rounds) {
    out[r.number] = best;
    if ((r.status == RoundStatus::Baseline || isAccepted(r.status)) && std::isfinite(r.aggregate)) best = r.aggregate;
  }
  return out;
}

const std::vector<ShapeResult>& finalShapes(const CampaignHistory& h) {
  static const std::vector<ShapeResult> none;
  if (!h.finalShapes.empty()) return h.finalShapes;
  const RoundRecord* best = bestRound(h);
  return best ? best->shapes : none;
}

const ShapeResult* findShape(const std::vector<ShapeResult>& shapes, const std::string& label) {
  for (const auto& s : shapes)
    if (s.label == label) return &s;
  return nullptr;
}

std::string percentOfPeak(const CampaignHistory& h, double v) {
  if (!h.devicePeak || !h.higherIsBetter || !std::isfinite(v) || *h.devicePeak <= 0) return "n/a";
  return fixed(v / *h.devicePeak * 100, 1) + "%";
}

void writeResult(std::ostringstream& out, const CampaignHistory& h) {
  const RoundRecord* base = baselineRound(h);
  const RoundRecord* best = bestRound(h);
  out << "### Result\n\n";
  if (!base) {
    out << "No baseline was recorded: the campaign ended before round-1 finished, so there is nothing to "
           "compare.\n\n";
    return;
  }
  double baseAgg = base->aggregate;
  out << "- Baseline (" << roundName(base->number) << "): " << withUnit(baseAgg, h.metricUnit) << "\n";
  if (best && best != base) {
    out << "- Best (" << roundName(best->number) << "): " << withUnit(best->aggregate, h.metricUnit) << " ("
        << signedPercent(gainPct(best->aggregate, baseAgg, h.higherIsBetter), 3) << " vs baseline)\n";
  } else {
    out << "- Best: the baseline; no round was accepted\n";
  }
  if (h.finalAggregate) {
    out << "- Final acceptance (all target shapes): " << withUnit(*h.finalAggregate, h.metricUnit) << " ("
        << signedPercent(gainPct(*h.finalAggregate, baseAgg, h.higherIsBetter), 3) << " vs baseline)\n";
  }
  if (!h.finalTestSummary.empty()) out << "- Full test suite: " << inlineText(brief(h.finalTestSummary, 240)) << "\n";
  Counts c = countRounds(h);
  out << "- Rounds attempted: " << c.attempted << "; accepted: " << c.accepted;
  if (c.withNote) out << " (" << c.withNote << " with a note)";
  out << "; rolled back: " << c.rolledBack << "\n";
  if (!h.terminationReason.empty()) out << "- Termination: " << inlineText(h.terminationReason) << "\n";
  out << "\n";
}

void writeShapes(std::ostringstream& out, const CampaignHistory& h) {
  const RoundRecord* base = baselineRound(h);
  if (!base || base->shapes.empty()) return;
  const auto& fin = finalShapes(h);
  bool peak = h.devicePeak && h.higherIsBetter;
  out << "### Per-shape: baseline -> final\n\n";
  std::string unit = h.metricUnit.empty() ? "" : " (" + h.metricUnit + ")";
  out << "| Shape | Baseline" << unit << " | Final" << unit << " | Gain |";
  if (peak) out << " % of peak (baseline -> final) |";
  out << " Final verdict |\n|---|---:|---:|---:|";
  if (peak) out << "---:|";
  out << "---|\n";
  for (const auto& s : base->shapes) {
    const ShapeResult* f = findShape(fin, s.label);
    double finalValue = f ? f->value : kNaN;
    out << "| " << cell(s.label) << " | " << value(s.value) << " | " << value(finalValue) << " | "
        << signedPercent(gainPct(finalValue, s.value, h.higherIsBetter), 2) << " |";
    if (peak) out << " " << percentOfPeak(h, s.value) << " -> " << percentOfPeak(h, finalValue) << " |";
    out << " " << (f ? toString(f->verdict) : "NOT_MEASURED") << " |\n";
  }
  if (peak) out << "\nDevice peak: " << withUnit(*h.devicePeak, h.metricUnit) << (h.deviceName.empty() ? "" : " (" + inlineText(h.deviceName) + ")") << ".\n";
  out << "\n";
}

void writeRounds(std::ostringstream& out, const CampaignHistory& h) {
  if (h.rounds.empty()) return;
  auto bestBefore = bestBeforeEachRound(h);
  out << "### Rounds\n\n";
  out << "| Round | Status | Change | Bucket | Aggregate | vs best before | Noise band | Decision |\n";
  out << "|---|---|---|---|---:|---:|---|---|\n";
  for (size_t i = 0; i < h.rounds.size(); ++i) {
    const RoundRecord& r = h.rounds[i];
    NoiseBand b = noiseBandOf(h, i);
    std::string band = b.known() ? value(b.lo) + " .. " + value(b.hi) : "n/a";
    std::string change = r.status == RoundStatus::Baseline
                             ? "—"
                             : signedPercent(observedChange(r, bestBefore[r.number], h.higherIsBetter), 3);
    out << "| " << r.number << " | " << toString(r.status) << " | " << cell(r.description) << " | "
        << bucketCell(r.bucket) << " | " << value(r.aggregate) << " | " << change << " | " << band << " | "
        << cell(brief(r.decisionReason, kReasonChars)) << " |\n";
  }
  out << "\n";
}

// The shapes of a round the gate proved faster (IMPROVED): "s65k +131.00% (CI +123.00% .. +139.00%)".
std::vector<std::string> provenShapes(const RoundRecord& r) {
  std::vector<std::string> out;
  for (const auto& s : r.shapes) {
    if (s.verdict != Verdict::Improved) continue;
    std::string text = s.label + " " + signedPercent(s.gainVsBestPct, 2);
    if (std::isfinite(s.ciLowPct) && std::isfinite(s.ciHighPct))
      text += " (CI " + signedPercent(s.ciLowPct, 2) + " .. " + signedPercent(s.ciHighPct, 2) + ")";
    out.push_back(text);
  }
  return out;
}

// The rounds directionOutcome (round_vocabulary.h) sorts as list_ineffective_directions does.
void writeDirections(std::ostringstream& out, const CampaignHistory& h) {
  auto bestBefore = bestBeforeEachRound(h);
  std::ostringstream effective, ineffective, proven;
  for (const auto& r : h.rounds) {
    const auto shapes = provenShapes(r);
    const auto outcome = directionOutcome(r.status, !shapes.empty());
    if (!outcome) continue;
    double change = observedChange(r, bestBefore[r.number], h.higherIsBetter);
    std::string line = "- " + roundName(r.number) + " (" + bucketCell(r.bucket) + "): " +
                       inlineText(r.description.empty() ? "(no description)" : r.description) + ": " +
                       signedPercent(change, 3);
    const std::string reason = r.decisionReason.empty() ? "" : inlineText(brief(r.decisionReason, kReasonChars));
    switch (*outcome) {
      case DirectionOutcome::Effective:
        effective << line << (r.status == RoundStatus::AcceptedWithNote ? " (accepted with a note)" : "") << "\n";
        break;
      case DirectionOutcome::Ineffective:
        ineffective << line << (reason.empty() ? "" : "; " + reason) << "\n";
        break;
      case DirectionOutcome::RolledBackWithProvenShape:
        proven << line << "; proven faster: " << inlineText(util::join(shapes, ", ")) << "; rolled back: "
               << (reason.empty() ? "(no reason recorded)" : reason) << "\n";
        break;
    }
  }
  out << "### Effective directions\n\n" << (effective.str().empty() ? "None: no round was accepted.\n" : effective.str())
      << "\n";
  if (!proven.str().empty()) {
    out << "### Rolled back with a shape proven faster\n\n"
        << "Not ineffective: the gate proved these shapes faster, and the round was rolled back for another "
           "reason. The change may be worth keeping where it wins.\n\n"
        << proven.str() << "\n";
  }
  out << "### Verified ineffective directions\n\n"
      << (!ineffective.str().empty() ? ineffective.str()
          : proven.str().empty()     ? std::string("None: no round was rolled back.\n")
                                     : std::string("None: every rolled-back round proved a shape faster (above).\n"))
      << "\n";
}

void writePredictions(std::ostringstream& out, const CampaignHistory& h) {
  auto bestBefore = bestBeforeEachRound(h);
  std::ostringstream rows;
  int judged = 0, right = 0;
  double absErrorSum = 0;
  int sized = 0;
  for (const auto& r : h.rounds) {
    if (!r.prediction) continue;
    const Prediction& p = *r.prediction;
    double observed = observedChange(r, bestBefore[r.number], h.higherIsBetter);
    double expected = std::isfinite(p.expectedPct) ? (p.expectImprovement ? 1 : -1) * std::fabs(p.expectedPct) : kNaN;
    std::string direction = "n/a";
    if (std::isfinite(observed)) {
      bool ok = p.expectImprovement == (observed > 0);
      ++judged;
      right += ok ? 1 : 0;
      direction = ok ? "yes" : "no";
    }
    std::string error = "n/a";
    if (std::isfinite(observed) && std::isfinite(expected)) {
      double e = std::fabs(observed - expected);
      absErrorSum += e;
      ++sized;
      error = fixed(e, 2) + " pp";
    }
    std::string predicted = std::string(p.expectImprovement ? "better" : "worse") +
                            (std::isfinite(expected) ? " by " + fixed(std::fabs(expected), 2) + "%" : "");
    if (!p.metric.empty()) predicted += " (" + p.metric + ")";
    rows << "| " << r.number << " | " << cell(predicted) << " | " << signedPercent(observed, 3) << " | " << direction
         << " | " << error << " |\n";
  }
  out << "### Prediction accuracy\n\n";
  if (judged == 0 && rows.str().empty()) {
    out << "No round declared an expected effect.\n\n";
    return;
  }
  out << "| Round | Predicted | Observed | Direction right | Size error |\n|---|---|---:|---|---:|\n" << rows.str()
      << "\n";
  out << "Direction right in " << right << " of " << judged << " rounds";
  if (sized > 0) out << "; mean absolute size error " << fixed(absErrorSum / sized, 2) << " percentage points";
  out << ".\n\n";
}

void writeAudit(std::ostringstream& out, const CampaignHistory& h) {
  RealTrainingAudit a = auditRealTraining(h);
  out << "### Real-training audit (rule 11)\n\n";
  if (a.rows.empty()) {
    out << "Verdict: nothing to audit (" << a.verdictReason << ").\n\n";
    return;
  }
  out << "| Round | Bucket | Class | Benchmark gain | Real gain | Why |\n|---|---|---|---:|---:|---|\n";
  for (const auto& row : a.rows) {
    out << "| " << row.round << " | " << bucketCell(row.bucket) << " | " << toString(row.cls) << " | "
        << signedPercent(row.benchmarkGainPct, 3) << " | " << signedPercent(row.realGainPct, 3) << " | "
        << cell(row.why) << " |\n";
  }
  out << "\n";
  out << "- S_real (K1-K4, transfers): " << signedPercent(a.sRealPct, 3) << "\n";
  out << "- W_real (W1, bounded): " << signedPercent(a.wRealPct, 3) << " of a benchmark " << signedPercent(a.wBenchmarkPct, 3)
      << "\n";
  out << "- R_real (W2/W3/unattributed, must be 0): " << signedPercent(a.rRealPct, 3)
      << (std::fabs(a.rRealPct) > 1e-9 ? " — VIOLATION" : "") << "\n";
  out << "- Benchmark gain " << signedPercent(a.benchmarkGainPct, 3) << "; estimated real-training gain "
      << signedPercent(a.realGainPct, 3) << "; inflation gap " << fixed(a.inflationGapPct, 3) << " percentage points\n";
  out << "- Verdict: **" << toString(a.verdict) << "**: " << a.verdictReason << "\n\n";
}

void writeNextSteps(std::ostringstream& out, const CampaignHistory& h) {
  out << "### Next three steps\n\n";
  int i = 1;
  for (const auto& step : nextThreeSteps(h)) out << i++ << ". " << inlineText(step) << "\n";
  out << "\n";
}

void writeCharts(std::ostringstream& out, const MarkdownOptions& options) {
  if (options.metricChartFile.empty() && options.heatmapFile.empty()) return;
  out << "### Charts\n\n";
  if (!options.metricChartFile.empty())
    out << "![Primary metric per round, accepted and rolled-back rounds marked, noise band shaded]("
        << options.metricChartFile << ")\n\n";
  if (!options.heatmapFile.empty())
    out << "![Per-shape gain vs baseline, shapes x rounds](" << options.heatmapFile << ")\n\n";
}

}  // namespace

std::vector<std::string> nextThreeSteps(const CampaignHistory& h) {
  std::vector<std::string> steps;
  for (const auto& s : h.nextSteps) {
    bool blank = std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
    if (!blank && steps.size() < 3) steps.push_back(s);
  }
  auto add = [&](std::string s) {
    if (steps.size() < 3) steps.push_back(std::move(s) + " (suggested by kopt)");
  };

  // A direction proven on some shape and rolled back for another reason is the nearest gain.
  for (auto r = h.rounds.rbegin(); r != h.rounds.rend(); ++r) {
    const auto shapes = provenShapes(*r);
    if (directionOutcome(r->status, !shapes.empty()) != DirectionOutcome::RolledBackWithProvenShape) continue;
    add("Round " + std::to_string(r->number) + " proved " + util::join(shapes, ", ") +
        " and was rolled back for another reason: keep its change where it wins (e.g. only for those shapes) and "
        "validate again");
    break;
  }
  // The weakest shape is where the next gain most likely is.
  const RoundRecord* base = baselineRound(h);
  if (base && !base->shapes.empty()) {
    const auto& fin = finalShapes(h);
    const ShapeResult* weakest = nullptr;
    double weakestGain = 0;
    for (const auto& s : base->shapes) {
      const ShapeResult* f = findShape(fin, s.label);
      double g = f ? gainPct(f->value, s.value, h.higherIsBetter) : kNaN;
      if (std::isfinite(g) && (!weakest || g < weakestGain)) {
        weakest = &s;
        weakestGain = g;
      }
    }
    if (weakest) {
      const ShapeResult* f = findShape(fin, weakest->label);
      std::string peak = percentOfPeak(h, f ? f->value : kNaN);
      add("Target shape " + weakest->label + ", which gained least (" + signedPercent(weakestGain, 2) + ")" +
          (peak == "n/a" ? "" : " and sits at " + peak + " of peak") + ": profile it first");
    }
  }
  // Two rollbacks in a row is the contract's stagnation trigger.
  if (h.rounds.size() >= 2 && h.rounds.back().status == RoundStatus::RolledBack &&
      h.rounds[h.rounds.size() - 2].status == RoundStatus::RolledBack) {
    add("Run the stagnation review: list three new directions in at least two categories before the next round");
  }
  RealTrainingAudit a = auditRealTraining(h);
  if (a.wBenchmarkPct > 0) add("Replace the W1 weight-cache gain with a kernel-side change (K1-K4) so it transfers in full");
  if (std::fabs(a.rRealPct) > 1e-9) add("Remove the R_real gain (forbidden cache or unattributed change) and re-measure");
  if (!h.rounds.empty()) {
    std::string inconclusive;
    for (const auto& s : h.rounds.back().shapes)
      if (s.verdict == Verdict::Inconclusive) inconclusive += (inconclusive.empty() ? "" : ", ") + s.label;
    if (!inconclusive.empty()) add("Re-measure the shapes left INCONCLUSIVE in the last round: " + inconclusive);
  }
  add("Profile the best kernel on the representative shapes (hardware counters) to pick the next bottleneck");
  add("Look up the state of the art for this op and GPU and list the techniques the kernel does not use yet");
  add("After any further change, run final_acceptance again on all target shapes and the full test suite");
  return steps;
}

std::string renderFinalReportSection(const CampaignHistory& history, const MarkdownOptions& options) {
  std::ostringstream out;
  out << "## Final Report\n\n";
  writeResult(out, history);
  writeShapes(out, history);
  writeRounds(out, history);
  writeDirections(out, history);
  writeAudit(out, history);
  writePredictions(out, history);
  writeNextSteps(out, history);
  writeCharts(out, options);
  return out.str();
}

std::string renderReportMarkdown(const CampaignHistory& history, const MarkdownOptions& options) {
  std::ostringstream out;
  out << "# Campaign report: " << inlineText(history.campaignName.empty() ? "(unnamed)" : history.campaignName)
      << "\n\n";
  out << "| | |\n|---|---|\n";
  out << "| Operator | " << cell(history.op) << " |\n";
  out << "| Backend | " << cell(history.backend) << " |\n";
  out << "| GPU | " << cell(history.gpu + (history.deviceName.empty() ? "" : " (" + history.deviceName + ")")) << " |\n";
  out << "| Primary metric | "
      << cell(history.metricName + (history.metricUnit.empty() ? "" : " (" + history.metricUnit + ")") +
              (history.higherIsBetter ? ", higher is better" : ", lower is better"))
      << " |\n";
  if (!history.generatedAt.empty()) out << "| Generated | " << cell(history.generatedAt) << " |\n";
  out << "\nWritten by kopt from its own measurements and ledger; the numbers were not reported by the agent.\n\n";
  out << renderFinalReportSection(history, options);
  return out.str();
}

}  // namespace kopt::campaign::report
