#pragma once
// The trees kopt measures the candidate against (the best, the baseline): git worktrees of a
// commit, built by kopt and recorded, so nothing but that commit's build is ever measured as them.
#include <filesystem>
#include <optional>
#include <string>

#include "campaign/command_outcome.h"
#include "campaign/engine_session.h"
#include "exec/executor.h"

namespace kopt::campaign::detail {

// A git worktree of `commit` at `dir` that kopt built with the manifest's build command (log at
// `buildLog`) and recorded in the ledger (WorktreeBuilt, with the tree's content hash). A
// tree that still hashes to that record is reused; any other is reset to the commit, cleaned of
// every untracked and ignored file, and built again (docs/integrity.md, referee holes 2, 9).
// Nothing set when ready; `unjudged` when `tool`'s build run was cancelled or lost by the cluster
// (the tree is not broken: the call fails and nothing is recorded), `error` when the tree could not
// be prepared or its build failed.
TreeBuild ensureWorktreeBuilt(OpenCampaign& session, exec::Executor& executor, const std::filesystem::path& dir,
                                   const std::string& commit, const std::filesystem::path& buildLog,
                                   const std::string& tool, const CallContext& ctx);

// The current best's worktree made ready for `tool` (run_quick_bench, validate_round), or why the
// call stops: the lost or cancelled build as it is, a failed one with what to check.
std::optional<ToolFailure> bestTreeFailure(OpenCampaign& session, exec::Executor& executor,
                                           const std::filesystem::path& buildLog, const std::string& tool,
                                           const CallContext& ctx);

}  // namespace kopt::campaign::detail
