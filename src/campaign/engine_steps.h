#pragma once
// Engine-internal steps shared between the per-tool files (recovery of interrupted steps, the
// decision that accept_or_revert applies, frozen-file verification).
#include <optional>
#include <string>
#include <vector>

#include "campaign/command_outcome.h"
#include "campaign/engine_session.h"
#include "campaign/frozen_files.h"
#include "exec/executor.h"

namespace kopt::campaign::detail {

// Finishes or discards what state.pending says was interrupted. Returns what it did ("" = nothing).
std::string recoverPending(OpenCampaign& session, const CallContext& ctx);

// Deletes the files of an unfinished measurement (runs/<tag>-*, measurement-<tag>.json) under a
// round's artifacts/ (or final/).
void discardMeasurement(const std::filesystem::path& artifactsDir, const std::string& tag);
void discardMeasurement(const OpenCampaign& session, int round, const std::string& tag);

// Applies the decision stored in state.pending (step "decide"): snapshot, git commit or restore,
// ledger event, records. Idempotent: each sub-step checks whether it already happened.
Outcome<AcceptOrRevertResult> completeDecision(OpenCampaign& session);

// Compares the frozen set recorded at BASELINE with the files and texts now.
std::vector<FrozenDifference> verifyFrozen(const OpenCampaign& session);

// openCampaign (Mutate) + recovery of an interrupted step + (optionally) the phase check.
Outcome<std::unique_ptr<OpenCampaign>> openForTool(const EngineOptions& options, const std::string& campaignDir,
                                              CampaignTool tool, const CallContext& ctx, bool checkPhase = true);

// Makes sure the working tree's build matches `fingerprint`: reuses the round's last successful
// build of the same files, else runs the build command (recording build_finished unless the run
// judged nothing).
TreeBuild ensureCandidateBuilt(OpenCampaign& session, exec::Executor& executor, const std::string& fingerprint,
                                    const std::string& tool, const CallContext& ctx, double progressAt,
                                    std::optional<double> progressTotal);

// The phase refusal for `session.tool` in the current phase.
Refusal phaseRefusal(const OpenCampaign& session);

}  // namespace kopt::campaign::detail
