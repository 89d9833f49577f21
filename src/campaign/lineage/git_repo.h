#pragma once
// The campaign's lineage in the user's git repository: one commit per accepted round on
// optimize/<campaign>, exact restores on rollback, kernel snapshots, and the best-build worktree.
// We drive the `git` command (not libgit2): it is always installed where kernels are developed,
// it needs no extra build dependency, and its behaviour on worktrees, excludes and the user's
// identity config is by definition the reference one.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kopt::campaign::lineage {

class GitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;  // message: "git <args>: <stderr>"
};

enum class ChangeKind { Modified, Added, Deleted, Untracked };
const char* toString(ChangeKind k);  // "modified", "added", "deleted", "untracked"

struct ChangedPath {
  std::string path;  // repo-relative, '/' separators
  ChangeKind kind = ChangeKind::Modified;
  bool operator==(const ChangedPath& o) const { return path == o.path && kind == o.kind; }
};

class GitRepo {
 public:
  // `workTree`: any directory inside the repository; the top level is found with rev-parse.
  // Throws GitError when it is not a git work tree.
  explicit GitRepo(const std::filesystem::path& workTree);

  static bool isRepo(const std::filesystem::path& dir);
  const std::filesystem::path& topLevel() const { return top_; }

  std::string headCommit() const;                    // full sha; throws when no commit yet
  std::optional<std::string> currentBranch() const;  // nullopt when detached
  bool branchExists(const std::string& name) const;
  bool commitExists(const std::string& rev) const;
  std::string resolve(const std::string& rev) const;  // full sha; throws when unknown
  // Creates `name` at startPoint (default HEAD) and checks it out; when it exists, checks it out.
  // The working tree's uncommitted changes are carried over (git checkout semantics).
  void createAndCheckoutBranch(const std::string& name, const std::string& startPoint = "HEAD");
  void checkout(const std::string& branchOrCommit);

  // Stages exactly `paths` (additions, modifications and deletions) and commits only them, whatever
  // else is staged or dirty. Author/committer from the user's config or GIT_* env; when none is
  // configured, "kopt <kopt@localhost>". Returns the new commit. Throws GitError (also when
  // nothing changed in those paths).
  std::string commitPaths(const std::vector<std::string>& paths, const std::string& message);

  // Files of `commit` whose bytes on disk differ from their blob (modified) or that are gone
  // (deleted), staged files the commit lacks (added), and untracked files (not ignored); anything
  // under `.kopt/` excluded. Sorted by path. By content: no assume-unchanged or skip-worktree bit
  // and no clean filter of the repository can hide a change (referee hole 3).
  std::vector<ChangedPath> changedSince(const std::string& commit) const;

  // Makes every path under `scope` (files or directories, repo-relative) exactly as in `commit`:
  // tracked files restored, files the commit lacks (tracked or untracked, not ignored) deleted.
  // The index for those paths is reset to the commit too. Files outside scope are untouched.
  void restorePaths(const std::string& commit, const std::vector<std::string>& scope);

  // Copies the working-tree files under `paths` (files or directories, repo-relative) into
  // destDir, keeping their relative layout. Missing paths are skipped. Returns the copied files.
  std::vector<std::string> snapshotFiles(const std::vector<std::string>& paths,
                                         const std::filesystem::path& destDir) const;

  // Appends `pattern` (default ".kopt/") to .git/info/exclude once (of the common git dir, so it
  // works from worktrees). Idempotent.
  void addExclude(const std::string& pattern = ".kopt/") const;

  // `git worktree add --detach <path> <commit>` (replaces a stale registration at that path) /
  // `git worktree remove --force <path>` + prune. moveWorktree = checkout of another commit there.
  void addWorktree(const std::filesystem::path& path, const std::string& commit) const;
  void removeWorktree(const std::filesystem::path& path) const;
  void checkoutWorktree(const std::filesystem::path& path, const std::string& commit) const;
  // Makes every regular file of `commit` in the checked-out tree at `path` byte for byte its
  // stored blob, and returns the paths it had to rewrite. A checkout applies the repository's own
  // attributes and filters (a smudge filter in .git/config, `eol`/`ident`/`working-tree-encoding`
  // in .gitattributes or .git/info/attributes), which the agent can write: a "best" that
  // checks out slower than it was committed makes any candidate look faster (referee hole 3,
  // docs/integrity.md). Symbolic links and submodules are left as checked out.
  std::vector<std::string> rewriteAsCommitted(const std::filesystem::path& path, const std::string& commit) const;

  // A commit's file content (git show <commit>:<path>); nullopt when the commit lacks it.
  std::optional<std::string> fileAt(const std::string& commit, const std::string& path) const;

 private:
  std::string git(const std::vector<std::string>& args) const;  // throws GitError on failure
  std::filesystem::path top_;
};

// "[optimize] <op> <backend> round-<N>: <one line>\n\nHypothesis: ...\nResult: geomean 301 -> 319
// TFLOPS (+6.0%)\nDetails: <campaign_dir>/logs/optimize.md" (loop-contract section 3).
struct CommitMessageInput {
  std::string op, backend;  // backend as in the manifest ("TRITON")
  int round = 0;
  std::string oneLine, hypothesis;
  double before = 0, after = 0;
  std::string unit;  // "TFLOPS"
  std::string campaignDir;
};
std::string acceptedRoundMessage(const CommitMessageInput& in);

}  // namespace kopt::campaign::lineage
