#include "campaign/worktree_build.h"

#include <system_error>

#include "campaign/candidate_tree.h"
#include "campaign/command_outcome.h"
#include "campaign/command_run.h"
#include "campaign/lineage/git_process.h"
#include "campaign/lineage/git_repo.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

TreeBuild ensureWorktreeBuilt(OpenCampaign& session, exec::Executor& executor, const fs::path& dir,
                                   const std::string& commit, const fs::path& buildLog, const std::string& tool,
                                   const CallContext& ctx) {
  std::error_code ec;
  // Once a "<dir>.built" marker file said the build was done: a file the agent could write
  // (beside its own binary in the tree; docs/integrity.md, referee hole 2). It means nothing now.
  fs::remove(dir.string() + ".built", ec);
  const Command& build = session.manifest.buildCommand;
  const std::string buildSha = build.empty() ? "" : util::sha256Hex(build.text);
  const std::string treeName = dir.filename().string();
  // What kopt last built in this tree, as the ledger says (the agent cannot forge a ledger line).
  std::string builtContent;
  if (const WorktreeBuilt* built = session.rounds.lastWorktreeBuild(treeName)) {
    if (built->commit == commit && built->build == buildSha) builtContent = built->content;
  }
  try {
    lineage::GitRepo repo(session.repo);
    if (!fs::exists(dir / ".git", ec)) {
      repo.addWorktree(dir, commit);
    } else {
      // Byte for byte what kopt built there, build outputs included: measure it as it is.
      if (!builtContent.empty() && worktreeContentFingerprint(dir) == builtContent) return {};
      // Otherwise kopt owns this tree: anything that is not the commit (a slowed-down "best", a
      // binary copied into the build output, a stale build) goes, ignored files included.
      lineage::GitRepo tree(dir);
      if (tree.headCommit() != commit) repo.checkoutWorktree(dir, commit);
      auto reset = lineage::runGit(dir, {"reset", "--hard", "-q", commit});
      auto clean = lineage::runGit(dir, {"clean", "-fdxq"});
      if (!reset.ok() || !clean.ok()) throw std::runtime_error(util::trim(reset.err + " " + clean.err));
    }
    // What a checkout wrote passed through the repository's own filters and attributes, which the
    // agent can set: build the commit's bytes, not what a smudge filter made of them.
    repo.rewriteAsCommitted(dir, commit);
  } catch (const std::exception& e) {
    return {std::nullopt, std::string("cannot prepare the worktree ") + dir.string() + ": " + e.what()};
  }
  if (build.empty()) return {};
  exec::RunResult r = runLogged(executor, build, session.placeholders(dir), dir, buildLog,
                                session.manifest.timeouts.buildSeconds, session.manifest.timeouts.hangSeconds, ctx,
                                "building " + commit.substr(0, 10) + " in " + dir.filename().string(), 0, std::nullopt);
  if (auto unjudged = unjudgedRunFailure(r, tool)) return {std::move(unjudged), ""};
  if (!r.ok()) {
    return {std::nullopt, "the build of " + commit.substr(0, 10) + " in " + dir.string() + " " + describe(r) +
                              " (log: " + buildLog.string() + ")"};
  }
  WorktreeBuilt built;
  built.tree = treeName;
  built.commit = commit;
  built.build = buildSha;
  built.content = worktreeContentFingerprint(dir);
  session.record(built, std::nullopt);
  return {};
}

std::optional<ToolFailure> bestTreeFailure(OpenCampaign& session, exec::Executor& executor, const fs::path& buildLog,
                                           const std::string& tool, const CallContext& ctx) {
  TreeBuild best = ensureWorktreeBuilt(session, executor, session.paths.bestWorktree, session.state.bestCommit,
                                       buildLog, tool, ctx);
  if (best.unjudged) return std::move(best.unjudged);
  if (!best.error.empty()) {
    return toolFailure(best.error, "", "the current best no longer builds in its worktree; check the environment");
  }
  return std::nullopt;
}

}  // namespace kopt::campaign::detail
