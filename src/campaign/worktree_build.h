#pragma once
// The trees kopt measures the candidate against (the best, the baseline): git worktrees of a
// commit, built by kopt and recorded, so nothing but that commit's build is ever measured as them.
#include <filesystem>
#include <string>

#include "campaign/engine_session.h"
#include "exec/executor.h"

namespace kopt::campaign::detail {

// A git worktree of `commit` at `dir` that kopt built with the manifest's build command (log at
// `buildLog`) and recorded in the ledger (WorktreeBuilt, with the tree's content hash). A
// tree that still hashes to that record is reused; any other is reset to the commit, cleaned of
// every untracked and ignored file, and built again (docs/integrity.md, referee holes 2, 9). Returns an error
// text, or "" when ready.
std::string ensureWorktreeBuilt(OpenCampaign& session, exec::Executor& executor, const std::filesystem::path& dir,
                                const std::string& commit, const std::filesystem::path& buildLog,
                                const CallContext& ctx);

}  // namespace kopt::campaign::detail
