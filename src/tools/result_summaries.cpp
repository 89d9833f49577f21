#include "tools/result_summaries.h"

#include <cmath>
#include <cstdio>

#include "measure/percent_format.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

std::string num(const std::optional<double>& v, const char* fmt = "%.4g") {
  if (!v || !std::isfinite(*v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, *v);
  return buf;
}

// "label  check  candidate  best  ratio  CI  verdict" lines.
std::string shapeTable(const std::vector<campaign::ShapeRow>& rows) {
  std::string out = "shape | check | candidate | best | ratio | CI (%) | verdict\n";
  for (const auto& r : rows) {
    out += r.label + " | " + r.check + " | " + num(r.candidate) + " | " + num(r.best) + " | " + num(r.ratio, "%.4f") +
           " | [" + num(r.ciLowPct, "%+.2f") + ", " + num(r.ciHighPct, "%+.2f") + "] | " + r.verdict + "\n";
  }
  return out;
}

}  // namespace

std::string summaryText(const campaign::DefineTargetResult& r) {
  std::string text = std::string(r.redefined ? "Redefined" : "Defined") + " the target; nothing else changed.\n" +
                     r.summary + "\nAsk the user to confirm it: call confirm_target with campaign_dir \"" +
                     r.campaignDir + "\".";
  for (const auto& w : r.warnings) text += "\nWarning: " + w;
  return text;
}

std::string summaryText(const campaign::ConfirmTargetResult& r) {
  return "Target confirmed by " + r.confirmedBy + " (" + r.method + "); the manifest is recorded (sha256 " +
         r.manifestSha256.substr(0, 12) + "..). Next: prepare_environment.";
}

std::string summaryText(const campaign::PrepareEnvironmentResult& r) {
  return "Environment ready: " + (r.branch ? "branch " + *r.branch : std::string("current branch")) + " at " +
         r.baseCommit.substr(0, 12) + ", campaign directory " + r.campaignDir +
         (r.harnessCopied ? ", quick harness at " + r.harnessPath : std::string()) + ". Next: read_tips.";
}

std::string summaryText(const campaign::ReadTipsResult& r) {
  if (!r.exists) return "No tips file yet at " + r.path + ". Next: run_baseline.";
  return std::to_string(r.count) + " tips from " + r.path + ":\n\n" + r.text + "\n\nNext: run_baseline.";
}

std::string summaryText(const campaign::BaselineResult& r) {
  std::string text = "Baseline recorded (round-1 at " + r.commit.substr(0, 12) + ", " + std::to_string(r.pairs) +
                     " A/A pairs; the gate calls " + std::to_string(r.aaSameShapes) + " of " +
                     std::to_string(r.aaShapes) + " shapes SAME against themselves). Every verdict's delta "
                     "is the policy margin, " + measure::percentText(r.marginPct / 100.0) + ".\n" + shapeTable(r.shapes);
  if (!r.harness.empty()) {
    text += "Harness check (" + std::to_string(r.aaSessions) + " worker sessions; each validation look runs " +
            std::to_string(r.blocksPerLook) +
            " blocks per shape):\n";
    for (const auto& line : r.harness) text += "  " + line + "\n";
  }
  text += "Representative shapes: ";
  for (std::size_t i = 0; i < r.representativeShapes.size(); ++i) text += (i ? ", " : "") + r.representativeShapes[i];
  text += "\nNext: analyze, then begin_round with one hypothesis.";
  return text;
}

std::string summaryText(const campaign::BeginRoundResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " is open on " + r.lineageHead.substr(0, 12) +
                     ". Edit only: " + util::join(r.declaredFiles, ", ") +
                     ". Then rebuild_kernel, run_tests, run_quick_bench (optional) and validate_round.";
  if (!r.alreadyChanged.empty()) text += "\nAlready differing from the head: " + util::join(r.alreadyChanged, ", ");
  return text;
}

std::string summaryText(const campaign::StepResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " " + r.step + ": " + (r.ok ? "ok" : "FAILED") + " (" +
                     r.outcome + ", " + std::to_string(r.wallMs) + " ms). Log: " + r.logPath;
  if (!r.logTail.empty()) text += "\n--- log tail ---\n" + r.logTail;
  return text;
}

std::string summaryText(const campaign::BenchResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " " + r.kind + " bench, " + std::to_string(r.pairs) +
                     " interleaved pairs (candidate vs current best):\n" + shapeTable(r.shapes) +
                     "Gate preview: " + r.preview + " (informational; validate_round decides)";
  for (const auto& reason : r.reasons) text += "\n- " + reason.message;
  return text;
}

std::string summaryText(const campaign::ValidateResult& r) {
  std::string text = "Round " + std::to_string(r.round) + " verdict: " + r.decision + " (" + r.kind + ", " +
                     std::to_string(r.pairs) + " interleaved pairs)\n";
  for (const auto& c : r.checks) text += "  ok: " + c + "\n";
  text += shapeTable(r.shapes);
  for (const auto& reason : r.reasons) text += "- " + reason.message + "\n";
  for (const auto& f : r.flags) text += "AUDIT flag: " + f + "\n";
  text += "Next: accept_or_revert (kopt applies the verdict; you supply attribution and next direction" +
          std::string(r.decision == "ROLLBACK" ? ", root_cause and lesson" : "") + ").";
  return text;
}

std::string summaryText(const campaign::AcceptOrRevertResult& r) {
  std::string text = "Round " + std::to_string(r.round) + ": " + r.status + ". ";
  if (r.status.rfind("ACCEPTED", 0) == 0) text += "Committed " + r.commit.substr(0, 12) + "; the current best moved there.";
  else text += "Restored the last accepted tree (" + r.commit.substr(0, 12) + ") for " + util::join(r.restoredFiles, ", ") + ".";
  text += " Records: " + r.summaryPath + ".";
  if (r.stagnationReviewRequired) text += " Two rollbacks in a row: termination_check with three new directions in >= 2 categories comes next.";
  return text;
}

std::string summaryText(const campaign::TerminationResult& r) {
  std::string text = "Termination check: " + r.decision + "\n";
  for (const auto& c : r.conditions) text += "  " + c.id + (c.met ? " MET: " : " not met: ") + c.detail + "\n";
  text += r.stop ? "Next: final_acceptance." : "Next: begin_round.";
  return text;
}

std::string summaryText(const campaign::FinalAcceptanceResult& r) {
  return "Final acceptance: tests " + std::string(r.testsOk ? "PASSED" : "FAILED") + " (" + r.testLog + "); best " +
         r.bestCommit.substr(0, 12) + " vs baseline " + r.baselineCommit.substr(0, 12) + " over " +
         std::to_string(r.pairs) + " interleaved pairs (the 'best' column is the baseline):\n" + shapeTable(r.shapes) +
         "Next: report.";
}

std::string summaryText(const campaign::ReportResult& r) { return "Report written to " + r.reportPath + "\n\n" + r.markdown; }

std::string summaryText(const campaign::StatusResult& s) {
  std::string text = "Campaign " + s.campaignName + " (" + s.campaignDir + "): phase " + campaign::toString(s.phase) +
                     " - " + s.expectation + ".\n";
  text += "Rounds: last " + std::to_string(s.lastRound) +
          (s.openRound ? ", open round " + std::to_string(*s.openRound) + " (files: " + util::join(s.declaredFiles, ", ") + ")" : "") +
          ", best round " + (s.bestRound ? std::to_string(*s.bestRound) : std::string("none")) + ", " +
          std::to_string(s.acceptedRounds) + " accepted, " + std::to_string(s.rolledBackRounds) +
          " rolled back, rollback streak " + std::to_string(s.consecutiveRollbacks) + ".\n";
  if (!s.lastValidation.empty()) text += "Open round's verdict: " + s.lastValidation + ".\n";
  text += "Integrity: " + s.integrity + "\n";
  for (const auto& p : s.problems) text += "  - " + p + "\n";
  if (!s.pendingStep.empty()) text += "Interrupted: " + s.recovery + "\n";
  for (const auto& n : s.next) text += "Next: " + n.tool + " (" + n.why + ")\n";
  return text;
}

std::string summaryText(const campaign::TrendResult& r) {
  std::string text = std::to_string(r.rows.size()) + " trend rows; rollback streak " + std::to_string(r.rollbackStreak) +
                     "; best round " + (r.currentBestRound ? std::to_string(*r.currentBestRound) : std::string("none")) +
                     ".";
  for (const auto& v : r.rows) text += "\n  round-" + std::to_string(v.round) + " " + v.status + ": " + v.description;
  return text;
}

std::string summaryText(const campaign::IneffectiveResult& r) {
  std::string text = std::to_string(r.items.size()) + " ineffective direction(s).";
  for (const auto& i : r.items) text += "\n  round-" + std::to_string(i.round) + ": " + i.direction + " (" + i.reason + ")";
  return text;
}

std::string summaryText(const campaign::BestSummaryResult& r) {
  if (!r.round) return r.note;
  return "Best round " + std::to_string(*r.round) + " (" + r.source + "):\n\n" + r.body;
}

std::string summaryText(const campaign::TipsQueryResult& r) {
  std::string text = std::to_string(r.items.size()) + " tip(s)" + (r.path.empty() ? "" : " from " + r.path) +
                     (r.note.empty() ? "" : " (" + r.note + ")");
  for (const auto& [heading, body] : r.items) text += "\n\n" + body;
  return text;
}

std::string summaryText(const campaign::AppendTipResult& r) { return "Tip appended to " + r.path; }

std::string summaryText(const BenchCsvReport& r) {
  std::string text = r.path + ": " + std::to_string(r.rowCount) + " rows, " + std::to_string(r.passCount) +
                     " counting as PASS" + (r.allPass ? " (all)" : "") + ".";
  for (const auto& [metric, geomean] : r.aggregate) text += "\n" + metric + ": geomean " + num(geomean) + " over the passing rows";
  text += "\nSchema check: " + r.schemaCheck.message + "\nShape check: " + r.shapeCheck.message;
  if (r.rowsOmitted) text += "\n" + std::to_string(r.rowsOmitted) + " rows left out of `rows` (max_rows).";
  return text + "\nNote: " + r.note;
}

std::string summaryText(const device::DeviceReport& r) {
  if (!r.present) return "No GPU: " + r.reason;
  std::string text = std::to_string(r.deviceCount) + " device(s) via " + r.backend + ":";
  for (const auto& e : r.devices) {
    text += "\n  " + std::to_string(e.info.index) + ": " + e.info.name + " (" + e.info.arch + ", " +
            std::to_string(e.info.computeUnits) + " compute units, " + device::formatGiB(e.info.memoryBytes) +
            "), " + device::describeIdentity(e.info, e.peak);
    if (e.peak.entry) {
      text += "; datasheet " + num(e.peak.entry->bf16DenseTflops) + " bf16 TFLOPS, " + num(e.peak.entry->hbmGBps) +
              " GB/s";
    }
    text += "; ceilings " + device::ceilingStatusName(e.ceilingStatus);
    if (e.ceilings) {
      text += ": copy " + num(e.ceilings->copyGBps) + " GB/s, bf16 matmul " + num(e.ceilings->matmulBf16Tflops) +
              " TFLOPS";
    }
    if (!e.ceilingNote.empty()) text += " (" + e.ceilingNote + ")";
  }
  for (const auto& w : r.warnings) text += "\nWarning: " + w;
  return text;
}

}  // namespace kopt::tools
