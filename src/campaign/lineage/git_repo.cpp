#include "campaign/lineage/git_repo.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "campaign/lineage/git_process.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::lineage {
namespace fs = std::filesystem;

namespace {

std::string describe(const std::vector<std::string>& args) {
  std::string s = "git";
  for (const auto& a : args) s += " " + (a.size() > 80 ? a.substr(0, 77) + "..." : a);
  return s;
}

std::vector<std::string> splitNul(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto end = s.find('\0', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool underKopt(const std::string& p) { return p == ".kopt" || util::startsWith(p, ".kopt/"); }

bool envSet(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// Pathspecs are taken literally: a file named "*.py" must not match every Python file.
std::vector<std::string> literal(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(":(literal)" + p);
  return out;
}

}  // namespace

const char* toString(ChangeKind k) {
  switch (k) {
    case ChangeKind::Modified: return "modified";
    case ChangeKind::Added: return "added";
    case ChangeKind::Deleted: return "deleted";
    case ChangeKind::Untracked: return "untracked";
  }
  return "?";
}

GitRepo::GitRepo(const fs::path& workTree) {
  GitOutput o = runGit(workTree, {"rev-parse", "--show-toplevel"});
  if (!o.ok()) {
    throw GitError(workTree.string() + " is not inside a git work tree: " + util::trim(o.err));
  }
  top_ = fs::path(util::trim(o.out));
}

bool GitRepo::isRepo(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  GitOutput o = runGit(dir, {"rev-parse", "--is-inside-work-tree"});
  return o.ok() && util::trim(o.out) == "true";
}

std::string GitRepo::git(const std::vector<std::string>& args) const {
  GitOutput o = runGit(top_, args);
  if (!o.ok()) throw GitError(describe(args) + ": " + util::trim(o.err.empty() ? o.out : o.err));
  return o.out;
}

std::string GitRepo::headCommit() const { return util::trim(git({"rev-parse", "--verify", "HEAD^{commit}"})); }

std::optional<std::string> GitRepo::currentBranch() const {
  GitOutput o = runGit(top_, {"symbolic-ref", "--quiet", "--short", "HEAD"});
  if (!o.ok()) return std::nullopt;
  return util::trim(o.out);
}

bool GitRepo::branchExists(const std::string& name) const {
  return runGit(top_, {"show-ref", "--verify", "--quiet", "refs/heads/" + name}).ok();
}

bool GitRepo::commitExists(const std::string& rev) const {
  return runGit(top_, {"rev-parse", "--verify", "--quiet", rev + "^{commit}"}).ok();
}

std::string GitRepo::resolve(const std::string& rev) const {
  return util::trim(git({"rev-parse", "--verify", rev + "^{commit}"}));
}

void GitRepo::createAndCheckoutBranch(const std::string& name, const std::string& startPoint) {
  if (branchExists(name)) {
    checkout(name);
  } else {
    git({"checkout", "-q", "-b", name, startPoint});
  }
}

void GitRepo::checkout(const std::string& branchOrCommit) { git({"checkout", "-q", branchOrCommit}); }

std::string GitRepo::commitPaths(const std::vector<std::string>& paths, const std::string& message) {
  if (paths.empty()) throw GitError("commitPaths: no paths given");
  std::string head = headCommit();
  // Build the commit in a private index seeded from HEAD: only `paths` change, whatever the user
  // has staged or left dirty elsewhere, and the user's index is never half-updated by a crash.
  fs::path gitDir = fs::path(util::trim(git({"rev-parse", "--absolute-git-dir"})));
  fs::path tmpIndex = gitDir / ("kopt-index-" + std::to_string(::getpid()));
  std::map<std::string, std::string> env = {{"GIT_INDEX_FILE", tmpIndex.string()}};
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove(p, ec);
    }
  } cleanup{tmpIndex};

  auto run = [&](const std::vector<std::string>& args, const std::string& in = "") {
    GitOutput o = runGit(top_, args, env, in);
    if (!o.ok()) throw GitError(describe(args) + ": " + util::trim(o.err.empty() ? o.out : o.err));
    return o.out;
  };
  run({"read-tree", head});
  // Only pathspecs that match something (on disk, or in HEAD for a deletion) may be passed.
  std::vector<std::string> present;
  for (const auto& p : paths) {
    std::error_code ec;
    bool onDisk = fs::exists(top_ / p, ec) || fs::is_symlink(top_ / p, ec);
    bool inHead = !run({"ls-files", "-z", "--", ":(literal)" + p}).empty();
    if (onDisk || inHead) present.push_back(p);
  }
  if (present.empty()) throw GitError("nothing to commit: none of the paths exist or are tracked");
  std::vector<std::string> addArgs = {"add", "-A", "--"};
  for (const auto& p : literal(present)) addArgs.push_back(p);
  run(addArgs);
  std::string tree = util::trim(run({"write-tree"}));
  std::string headTree = util::trim(git({"rev-parse", head + "^{tree}"}));
  if (tree == headTree) throw GitError("nothing to commit: the paths are unchanged since " + head);

  // Identity: the user's (config or GIT_* env); kopt's only when none is configured, so a fresh
  // CI box can still record the lineage.
  std::vector<std::string> identity;
  bool haveName = envSet("GIT_AUTHOR_NAME") || !util::trim(runGit(top_, {"config", "user.name"}).out).empty();
  bool haveEmail = envSet("GIT_AUTHOR_EMAIL") || envSet("EMAIL") ||
                   !util::trim(runGit(top_, {"config", "user.email"}).out).empty();
  if (!haveName) identity = {"-c", "user.name=kopt"};
  if (!haveEmail) {
    identity.push_back("-c");
    identity.push_back("user.email=kopt@localhost");
  }
  std::vector<std::string> commitArgs = identity;
  for (const std::string& a : {std::string("commit-tree"), tree, std::string("-p"), head, std::string("-F"),
                               std::string("-")}) {
    commitArgs.push_back(a);
  }
  std::string commit = util::trim(run(commitArgs, message));
  // Move the branch (or detached HEAD) only if nobody moved it meanwhile.
  git({"update-ref", "-m", "kopt: accepted round", "HEAD", commit, head});
  // The user's index for these paths now matches the new commit; failures here leave only a
  // cosmetic "staged" difference, never a wrong commit.
  std::vector<std::string> resetArgs = {"reset", "-q", commit, "--"};
  for (const auto& p : literal(present)) resetArgs.push_back(p);
  runGit(top_, resetArgs);
  return commit;
}

std::vector<ChangedPath> GitRepo::changedSince(const std::string& commit) const {
  std::vector<ChangedPath> out;
  // Working tree (staged or not) against the commit, for tracked paths.
  auto diff = splitNul(git({"diff", "--name-status", "--no-renames", "-z", commit, "--"}));
  for (std::size_t i = 0; i + 1 < diff.size(); i += 2) {
    const std::string& status = diff[i];
    const std::string& path = diff[i + 1];
    if (underKopt(path)) continue;
    ChangeKind kind = ChangeKind::Modified;
    if (status[0] == 'A') kind = ChangeKind::Added;
    else if (status[0] == 'D') kind = ChangeKind::Deleted;
    out.push_back({path, kind});
  }
  for (const auto& path : splitNul(git({"ls-files", "--others", "--exclude-standard", "-z"}))) {
    if (underKopt(path)) continue;
    out.push_back({path, ChangeKind::Untracked});
  }
  std::sort(out.begin(), out.end(), [](const ChangedPath& a, const ChangedPath& b) { return a.path < b.path; });
  return out;
}

void GitRepo::restorePaths(const std::string& commit, const std::vector<std::string>& scope) {
  if (scope.empty()) return;
  std::string sha = resolve(commit);
  std::vector<std::string> specs = literal(scope);

  std::vector<std::string> lsTree = {"ls-tree", "-r", "-z", "--name-only", sha, "--"};
  lsTree.insert(lsTree.end(), specs.begin(), specs.end());
  auto inCommitList = splitNul(git(lsTree));
  std::set<std::string> inCommit(inCommitList.begin(), inCommitList.end());

  std::vector<std::string> tracked = {"ls-files", "-z", "--"};
  tracked.insert(tracked.end(), specs.begin(), specs.end());
  std::vector<std::string> untracked = {"ls-files", "--others", "--exclude-standard", "-z", "--"};
  untracked.insert(untracked.end(), specs.begin(), specs.end());
  auto trackedNow = splitNul(git(tracked));
  auto untrackedNow = splitNul(git(untracked));

  // Files the commit lacks: delete from disk (and from the index when tracked).
  std::vector<std::string> dropFromIndex;
  auto removeFile = [&](const std::string& rel) {
    if (inCommit.count(rel) || underKopt(rel)) return false;
    std::error_code ec;
    fs::remove(top_ / rel, ec);
    // Directories emptied by the removal go too, up to the repository root.
    fs::path dir = (top_ / rel).parent_path();
    while (dir != top_ && util::startsWith(dir.string(), top_.string()) && fs::is_empty(dir, ec) && !ec) {
      fs::remove(dir, ec);
      dir = dir.parent_path();
    }
    return true;
  };
  for (const auto& f : trackedNow) {
    if (removeFile(f)) dropFromIndex.push_back(f);
  }
  for (const auto& f : untrackedNow) removeFile(f);
  if (!dropFromIndex.empty()) {
    std::vector<std::string> rm = {"rm", "-q", "--cached", "--ignore-unmatch", "--"};
    for (const auto& p : literal(dropFromIndex)) rm.push_back(p);
    git(rm);
  }
  // Files the commit has: exact content and index entry.
  if (!inCommit.empty()) {
    std::string list;
    for (const auto& f : inCommit) list += f + '\0';
    GitOutput o = runGit(top_, {"--literal-pathspecs", "checkout", sha, "--pathspec-from-file=-",
                                "--pathspec-file-nul"},
                         {}, list);
    if (!o.ok()) throw GitError("git checkout " + sha + " -- <" + std::to_string(inCommit.size()) +
                                " files>: " + util::trim(o.err));
  }
}

std::vector<std::string> GitRepo::snapshotFiles(const std::vector<std::string>& paths,
                                                const fs::path& destDir) const {
  std::vector<std::string> copied;
  fs::create_directories(destDir);
  auto copyOne = [&](const fs::path& src, const std::string& rel) {
    fs::path dst = destDir / rel;
    fs::create_directories(dst.parent_path());
    std::error_code ec;
    if (fs::is_symlink(src)) {
      fs::remove(dst, ec);
      fs::copy_symlink(src, dst);
    } else {
      fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
    }
    copied.push_back(rel);
  };
  for (const auto& p : paths) {
    fs::path src = top_ / p;
    std::error_code ec;
    if (fs::is_symlink(src, ec)) {
      copyOne(src, fs::path(p).generic_string());
    } else if (fs::is_directory(src, ec)) {
      for (auto it = fs::recursive_directory_iterator(src, fs::directory_options::none, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->path().filename() == ".git") {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file() || it->is_symlink()) {
          copyOne(it->path(), it->path().lexically_relative(top_).generic_string());
        }
      }
    } else if (fs::is_regular_file(src, ec)) {
      copyOne(src, fs::path(p).generic_string());
    }
  }
  std::sort(copied.begin(), copied.end());
  return copied;
}

void GitRepo::addExclude(const std::string& pattern) const {
  fs::path common = fs::path(util::trim(git({"rev-parse", "--git-common-dir"})));
  if (common.is_relative()) common = top_ / common;
  fs::path exclude = common / "info" / "exclude";
  std::string text = util::readFileIfExists(exclude).value_or("");
  for (const auto& line : util::splitLines(text)) {
    if (util::trim(line) == pattern) return;
  }
  if (!text.empty() && text.back() != '\n') text += "\n";
  text += pattern + "\n";
  util::writeFileAtomic(exclude, text);
}

void GitRepo::addWorktree(const fs::path& path, const std::string& commit) const {
  std::string sha = resolve(commit);
  removeWorktree(path);
  fs::create_directories(path.parent_path());
  git({"worktree", "add", "--detach", "--force", path.string(), sha});
}

void GitRepo::removeWorktree(const fs::path& path) const {
  std::error_code ec;
  runGit(top_, {"worktree", "remove", "--force", "--force", path.string()});
  if (fs::exists(path, ec)) fs::remove_all(path, ec);
  runGit(top_, {"worktree", "prune"});
}

void GitRepo::checkoutWorktree(const fs::path& path, const std::string& commit) const {
  std::string sha = resolve(commit);
  GitOutput o = runGit(path, {"checkout", "-q", "--detach", "--force", sha});
  if (!o.ok()) throw GitError("git checkout in worktree " + path.string() + ": " + util::trim(o.err));
}

std::vector<std::string> GitRepo::rewriteAsCommitted(const fs::path& path, const std::string& commit) const {
  const std::string sha = resolve(commit);
  struct Blob {
    std::string sha, path;
    bool executable;
  };
  std::vector<Blob> blobs;
  for (const std::string& entry : splitNul(git({"ls-tree", "-r", "-z", "--full-tree", sha}))) {
    // "<mode> SP <type> SP <sha> TAB <path>"
    const std::size_t tab = entry.find('\t');
    if (tab == std::string::npos) continue;
    const std::string meta = entry.substr(0, tab);
    const bool regular = meta.rfind("100644 blob ", 0) == 0, executable = meta.rfind("100755 blob ", 0) == 0;
    if (!regular && !executable) continue;
    std::string file = entry.substr(tab + 1);
    if (file.find('\n') != std::string::npos) continue;  // --stdin-paths is line based; such names are not kernels
    blobs.push_back({meta.substr(meta.rfind(' ') + 1), std::move(file), executable});
  }
  if (blobs.empty()) return {};
  std::string paths;
  for (const Blob& b : blobs) paths += b.path + "\n";
  // --no-filters: the bytes as they are on disk, without the clean filter or eol conversion
  GitOutput hashed = runGit(path, {"hash-object", "--no-filters", "--stdin-paths"}, {}, paths);
  std::vector<std::string> onDisk = util::splitLines(hashed.out);
  if (!hashed.ok() || onDisk.size() != blobs.size()) {
    // a file of the commit is missing: rewrite them all rather than guess which
    onDisk.assign(blobs.size(), std::string());
  }
  std::vector<std::string> rewritten;
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    if (util::trim(onDisk[i]) == blobs[i].sha) continue;
    GitOutput raw = runGit(top_, {"cat-file", "blob", blobs[i].sha});
    if (!raw.ok()) throw GitError("git cat-file blob " + blobs[i].sha + ": " + util::trim(raw.err));
    const fs::path target = path / blobs[i].path;
    fs::create_directories(target.parent_path());
    util::writeFileAtomic(target, raw.out);
    fs::permissions(target, blobs[i].executable ? fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                                      fs::perms::others_read | fs::perms::others_exec
                                                : fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                                      fs::perms::others_read);
    rewritten.push_back(blobs[i].path);
  }
  return rewritten;
}

std::optional<std::string> GitRepo::fileAt(const std::string& commit, const std::string& path) const {
  GitOutput o = runGit(top_, {"cat-file", "blob", commit + ":" + path});
  if (!o.ok()) return std::nullopt;
  return o.out;
}

std::string acceptedRoundMessage(const CommitMessageInput& in) {
  auto num = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  auto line = [](const std::string& s) {
    return util::replaceAll(util::replaceAll(util::trim(s), "\r", ""), "\n", " ");
  };
  double pct = in.before != 0 ? (in.after / in.before - 1.0) * 100.0 : NAN;
  std::string msg = "[optimize] " + in.op + " " + in.backend + " round-" + std::to_string(in.round) + ": " +
                    line(in.oneLine) + "\n\n";
  msg += "Hypothesis: " + line(in.hypothesis) + "\n";
  msg += "Result: geomean " + num(in.before) + " -> " + num(in.after) + " " + in.unit + " (" +
         util::formatSignedPercent(pct, 1) + ")\n";
  msg += "Details: " + in.campaignDir + "/logs/optimize.md\n";
  return msg;
}

}  // namespace kopt::campaign::lineage
