// Restart safety: what a call finds when the previous server died mid-step, and how the engine
// resumes. The ledger says which steps finished; state.pending says which one was running.
// Measurements and builds are re-run from scratch (their partial files are deleted); a decision
// (commit / restore) is completed, because its inputs are all in the pending marker.
#include <system_error>

#include "campaign/engine_steps.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

Refusal phaseRefusal(const OpenCampaign& s) {
  std::string why = std::string("the campaign is in ") + toString(s.state.phase) + ": " + expectationFor(s.state.phase);
  std::string next = nextToolFor(s.state.phase);
  if (s.tool == CampaignTool::BeginRound && s.state.openRound) {
    Refusal r = s.refuse(RefusalCode::RoundOpen,
                         "round " + std::to_string(s.state.openRound->number) +
                             " is still open; one round at a time (finish it with validate_round and accept_or_revert)",
                         next);
    return r;
  }
  if ((s.tool == CampaignTool::RebuildKernel || s.tool == CampaignTool::RunTests ||
       s.tool == CampaignTool::RunQuickBench || s.tool == CampaignTool::ValidateRound) &&
      !s.state.openRound) {
    return s.refuse(RefusalCode::NoOpenRound, why + "; no round is open (begin_round declares one)", next);
  }
  return s.refuse(RefusalCode::WrongPhase, why, next);
}

void discardMeasurement(const OpenCampaign& s, int round, const std::string& tag) {
  discardMeasurement(s.paths.round(round).artifacts, tag);
}

void discardMeasurement(const fs::path& artifacts, const std::string& tag) {
  if (tag.empty()) return;
  std::error_code ec;
  // Remembered, so the next measurement takes a new tag (an orphaned bench may still write here).
  const fs::path list = artifacts / "discarded-tags";
  const std::string before = util::readFileIfExists(list).value_or("");
  if (before.find(tag + "\n") == std::string::npos) util::writeFileAtomic(list, before + tag + "\n");
  const fs::path runs = artifacts / "runs";
  if (fs::is_directory(runs, ec)) {
    std::vector<fs::path> doomed;
    for (const auto& entry : fs::directory_iterator(runs, ec)) {
      if (util::startsWith(entry.path().filename().string(), tag + "-")) doomed.push_back(entry.path());
    }
    for (const auto& p : doomed) fs::remove_all(p, ec);  // a sharded run leaves <stem>.shards/
  }
  fs::remove(artifacts / ("measurement-" + tag + ".json"), ec);
}

std::string recoverPending(OpenCampaign& s, const CallContext&) {
  if (!s.state.pending) return {};
  const PendingStep p = *s.state.pending;
  const std::string at = " (interrupted at " + p.startedAt + ")";
  std::string note;
  if (p.decision()) {
    auto done = completeDecision(s);
    if (done.refused() && done.refusal().code == RefusalCode::RecordTampered) s.recoveryRefusal = done.refusal();
    note = done.ok() ? "completed the interrupted accept_or_revert of round-" + std::to_string(p.round) + at
                     : "could not complete the interrupted accept_or_revert of round-" + std::to_string(p.round) +
                           ": " + done.errorText();
  } else if (const auto* measurement = std::get_if<PendingMeasurement>(&p.detail)) {
    for (const auto& tag : measurement->tagsToDiscard()) {
      if (!measurement->artifacts.empty()) discardMeasurement(fs::path(measurement->artifacts), tag);
      else discardMeasurement(s, p.round, tag);
    }
    s.clearStep();
    note = "discarded the partial files of an interrupted " + p.step + " of round-" + std::to_string(p.round) + at +
           "; it is re-run from scratch";
  } else {
    s.clearStep();
    note = "the interrupted " + p.step + " of round-" + std::to_string(p.round) + at + " did not finish; re-run it";
  }
  s.recoveryNotes.push_back(note);
  return note;
}

Outcome<std::unique_ptr<OpenCampaign>> openForTool(const EngineOptions& options, const std::string& campaignDir,
                                              CampaignTool tool, const CallContext& ctx, bool checkPhase) {
  auto opened = openCampaign(options, campaignDir, tool, OpenMode::Mutate);
  if (!opened.ok()) return opened;
  OpenCampaign& s = *opened.value();
  try {
    recoverPending(s, ctx);
  } catch (const std::exception& e) {
    return toolFailure(std::string("recovering an interrupted step failed: ") + e.what());
  }
  if (s.recoveryRefusal) return *s.recoveryRefusal;
  if (checkPhase && !allowedIn(tool, s.state.phase)) return phaseRefusal(s);
  return opened;
}

}  // namespace kopt::campaign::detail
