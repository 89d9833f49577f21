#pragma once
// The tree kopt measures and commits: which files are the kernel's (its scope), their
// fingerprints, the fingerprint of everything else the repository tracks, and what Python would
// import there in place of the tracked sources.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine_session.h"

namespace kopt::campaign::detail {

// Files (tracked, and untracked not ignored) under `paths` in the repository, repo-relative,
// sorted; `.kopt/` excluded.
std::vector<std::string> listScopeFiles(const std::filesystem::path& repo, const std::vector<std::string>& paths);
// sha256 over the names and contents of those files: "what would be measured".
std::string treeFingerprint(const std::filesystem::path& repo, const std::vector<std::string>& paths);
// kernel_source plus the open round's declared files.
std::vector<std::string> kernelScope(const OpenCampaign& session);
// True when `file` (repo-relative) is `scope` or lies under it (scope a directory).
bool inScope(const std::string& file, const std::string& scope);
bool inAnyScope(const std::string& file, const std::vector<std::string>& scopes);

// The tracked files of the repository outside the kernel sources, each with the sha256 of its
// bytes on disk ("<missing>" when gone): the harness sources a build compiles, scripts, data.
// Listed by `git ls-files` and hashed by kopt, so no git view (assume-unchanged, skip-worktree,
// filters) can hide an edit (docs/integrity.md, referee holes 3, 4).
std::map<std::string, std::string> nonKernelFileHashes(const OpenCampaign& session);
// One sha256 over that map (paths and hashes): what BASELINE freezes as
// kFrozenNonKernelFiles.
std::string nonKernelFingerprint(const std::map<std::string, std::string>& hashes);
inline constexpr const char* kFrozenNonKernelFiles = "repository outside the kernel sources";

// Before a command runs in the candidate's tree (docs/integrity.md, referee hole 2): removes the
// bytecode caches of its tracked Python sources, so Python runs what kopt hashed, not a planted
// cache whose header matches the source; returns a text naming the untracked files Python would
// import in place of a tracked source (a package directory, an extension module), "" when none.
std::string clearPythonShadows(const OpenCampaign& session, int* cachesRemoved = nullptr);
// clearPythonShadows as the first step of `tool`: the failure that stops it, if any.
std::optional<ToolFailure> pythonShadowFailure(const OpenCampaign& session, const std::string& tool,
                                               int* cachesRemoved = nullptr);

// sha256 over every file and symlink under `dir` (path and content), git's own .git left out:
// sources, build outputs and ignored files alike, so nothing in the tree changes unseen.
// `excluded`: paths relative to `dir` left out with everything under them.
std::string worktreeContentFingerprint(const std::filesystem::path& dir, const std::vector<std::string>& excluded = {});
// The same over the candidate's working tree, kopt's own records (.kopt, the campaign directory)
// left out: recorded after every build of the candidate, so a binary swapped in afterwards shows.
std::string candidateContentFingerprint(const OpenCampaign& session);

}  // namespace kopt::campaign::detail
