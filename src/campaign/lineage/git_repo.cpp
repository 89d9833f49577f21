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

// One file entry of a commit's tree ("<mode> SP <type> SP <sha> TAB <path>" in ls-tree -z).
struct TreeFile {
  std::string sha, path;
  bool executable = false;
  bool symlink = false;
};

std::vector<TreeFile> parseTreeFiles(const std::string& lsTreeZ) {
  std::vector<TreeFile> out;
  for (const std::string& entry : splitNul(lsTreeZ)) {
    const std::size_t tab = entry.find('\t');
    if (tab == std::string::npos) continue;
    const std::string meta = entry.substr(0, tab);
    TreeFile f;
    f.executable = meta.rfind("100755 blob ", 0) == 0;
    f.symlink = meta.rfind("120000 blob ", 0) == 0;
    if (!f.executable && !f.symlink && meta.rfind("100644 blob ", 0) != 0) continue;  // submodules
    f.sha = meta.substr(meta.rfind(' ') + 1);
    f.path = entry.substr(tab + 1);
    out.push_back(std::move(f));
  }
  return out;
}

// The blob id of each file under `dir` as its bytes are on disk (hash-object --no-filters: no clean
// filter, no eol conversion, no index bit consulted); "" where it cannot be read. Names with a
// newline (--stdin-paths is line based) are hashed one call each.
std::vector<std::string> hashOnDisk(const fs::path& dir, const std::vector<std::string>& paths) {
  std::vector<std::string> out(paths.size());
  std::string batch;
  std::vector<std::size_t> batched;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].find('\n') != std::string::npos) {
      GitOutput one = runGit(dir, {"hash-object", "--no-filters", "--", paths[i]});
      if (one.ok()) out[i] = util::trim(one.out);
      continue;
    }
    batch += paths[i] + "\n";
    batched.push_back(i);
  }
  if (batched.empty()) return out;
  GitOutput hashed = runGit(dir, {"hash-object", "--no-filters", "--stdin-paths"}, {}, batch);
  std::vector<std::string> lines = util::splitLines(hashed.out);
  if (hashed.ok() && lines.size() == batched.size()) {
    for (std::size_t k = 0; k < batched.size(); ++k) out[batched[k]] = util::trim(lines[k]);
  }
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
  // By content, not by `git diff`: the index's assume-unchanged and skip-worktree bits and the
  // repository's clean filters decide what diff and status report, and the agent can set them all
  // (referee hole 3). Every file of the commit is hashed as its bytes are on disk and compared
  // with its blob; the index only names the files a round added.
  const std::vector<TreeFile> files = parseTreeFiles(git({"ls-tree", "-r", "-z", "--full-tree", resolve(commit)}));
  std::vector<ChangedPath> out;
  std::set<std::string> inCommit;
  std::vector<std::string> regular;
  std::vector<const TreeFile*> regularFiles;
  for (const TreeFile& f : files) {
    inCommit.insert(f.path);
    if (underKopt(f.path)) continue;
    const fs::path onDisk = top_ / f.path;
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(onDisk, ec);
    if (ec || !fs::exists(st)) {
      out.push_back({f.path, ChangeKind::Deleted});
    } else if (f.symlink || fs::is_symlink(st)) {
      // a link's blob is its target's name
      const bool same = f.symlink && fs::is_symlink(st) && fileAt(commit, f.path) == fs::read_symlink(onDisk, ec).string();
      if (!same) out.push_back({f.path, ChangeKind::Modified});
    } else if (!fs::is_regular_file(st)) {
      out.push_back({f.path, ChangeKind::Modified});
    } else {
      regular.push_back(f.path);
      regularFiles.push_back(&f);
    }
  }
  const std::vector<std::string> hashes = hashOnDisk(top_, regular);
  for (std::size_t i = 0; i < regular.size(); ++i) {
    if (hashes[i] != regularFiles[i]->sha) out.push_back({regular[i], ChangeKind::Modified});
  }
  // Staged files the commit lacks (a skip-worktree bit cannot hide a path the commit does not have).
  for (const auto& path : splitNul(git({"ls-files", "-z"}))) {
    if (inCommit.count(path) || underKopt(path)) continue;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(top_ / path, ec))) out.push_back({path, ChangeKind::Added});
  }
  for (const auto& path : splitNul(git({"ls-files", "--others", "--exclude-standard", "-z"}))) {
    if (underKopt(path)) continue;
    out.push_back({path, ChangeKind::Untracked});
  }
  std::sort(out.begin(), out.end(), [](const ChangedPath& a, const ChangedPath& b) { return a.path < b.path; });
  out.erase(std::unique(out.begin(), out.end()), out.end());
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
  std::vector<TreeFile> blobs = parseTreeFiles(git({"ls-tree", "-r", "-z", "--full-tree", resolve(commit)}));
  blobs.erase(std::remove_if(blobs.begin(), blobs.end(), [](const TreeFile& f) { return f.symlink; }), blobs.end());
  if (blobs.empty()) return {};
  std::vector<std::string> paths;
  for (const TreeFile& b : blobs) paths.push_back(b.path);
  // a file of the commit that is missing or unreadable hashes to "": it is rewritten
  const std::vector<std::string> onDisk = hashOnDisk(path, paths);
  std::vector<std::string> rewritten;
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    if (onDisk[i] == blobs[i].sha) continue;
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
