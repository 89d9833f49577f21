#include "campaign/lineage/git_repo.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "campaign/lineage/git_process.h"
#include "util/atomic_file.h"
#include "util/text.h"

using namespace kopt::campaign::lineage;
namespace fs = std::filesystem;
using kopt::util::readFile;
using kopt::util::writeFileAtomic;

namespace {

// A throwaway repository with its own identity, so tests never depend on the machine's config.
struct TempRepo {
  fs::path dir;
  explicit TempRepo(const std::string& tag) {
    dir = fs::canonical(fs::temp_directory_path()) / ("kopt_git_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    sh({"init", "-q", "-b", "main"});
    sh({"config", "user.name", "Test User"});
    sh({"config", "user.email", "test@example.com"});
    write("kernels/gemm.py", "BLOCK_M = 64\n");
    write("kernels/util.py", "def f(): pass\n");
    write("tests/test_gemm.py", "def test(): pass\n");
    write("README.md", "readme\n");
    sh({"add", "-A"});
    sh({"commit", "-q", "-m", "initial"});
  }
  ~TempRepo() { fs::remove_all(dir); }
  std::string sh(const std::vector<std::string>& args) const {
    GitOutput o = runGit(dir, args);
    REQUIRE_MESSAGE(o.ok(), "git failed: ", kopt::util::join(args, " "), ": ", o.err);
    return o.out;
  }
  void write(const std::string& rel, const std::string& text) const { writeFileAtomic(dir / rel, text); }
  std::string read(const std::string& rel) const { return readFile(dir / rel); }
};

struct EnvGuard {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  void set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~EnvGuard() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else ::unsetenv(it->first.c_str());
    }
  }
};

}  // namespace

TEST_CASE("repository basics: top level, head, branches") {
  TempRepo r("basics");
  CHECK(GitRepo::isRepo(r.dir));
  CHECK_FALSE(GitRepo::isRepo(r.dir.parent_path()));
  CHECK_THROWS_AS(GitRepo(fs::temp_directory_path()), GitError);
  GitRepo repo(r.dir / "kernels");
  CHECK(repo.topLevel() == r.dir);
  std::string head = repo.headCommit();
  CHECK(head.size() == 40);
  CHECK(repo.currentBranch() == std::optional<std::string>("main"));
  CHECK_FALSE(repo.branchExists("optimize/c"));
  repo.createAndCheckoutBranch("optimize/c");
  CHECK(repo.currentBranch() == std::optional<std::string>("optimize/c"));
  repo.checkout("main");
  repo.createAndCheckoutBranch("optimize/c");  // exists: just checked out
  CHECK(repo.currentBranch() == std::optional<std::string>("optimize/c"));
  CHECK(repo.commitExists(head));
  CHECK_FALSE(repo.commitExists("0123456789012345678901234567890123456789"));
  CHECK(repo.resolve("HEAD") == head);
  CHECK_THROWS_AS(repo.resolve("nope"), GitError);
}

TEST_CASE("commitPaths commits exactly the declared paths, deletions and new files included") {
  TempRepo r("commit");
  GitRepo repo(r.dir);
  std::string before = repo.headCommit();
  r.write("kernels/gemm.py", "BLOCK_M = 128\n");
  r.write("kernels/new_helper.py", "x = 1\n");
  fs::remove(r.dir / "kernels/util.py");
  r.write("README.md", "dirty, not declared\n");
  r.write("tests/test_gemm.py", "staged, not declared\n");
  r.sh({"add", "tests/test_gemm.py"});

  std::string commit = repo.commitPaths({"kernels/gemm.py", "kernels/new_helper.py", "kernels/util.py"},
                                        "[optimize] gemm TRITON round-2: BLOCK_M 128\n\nHypothesis: h\n");
  CHECK(repo.headCommit() == commit);
  CHECK(r.sh({"rev-parse", "HEAD^"}) == before + "\n");
  std::string files = r.sh({"diff-tree", "--no-commit-id", "--name-status", "-r", commit});
  CHECK(files == "M\tkernels/gemm.py\nA\tkernels/new_helper.py\nD\tkernels/util.py\n");
  CHECK(r.sh({"log", "-1", "--format=%B"}).rfind("[optimize] gemm TRITON round-2: BLOCK_M 128\n\nHypothesis: h", 0) == 0);
  CHECK(r.sh({"log", "-1", "--format=%an <%ae>"}) == "Test User <test@example.com>\n");
  // Undeclared edits are still there, the user's staged change is still staged.
  CHECK(r.read("README.md") == "dirty, not declared\n");
  CHECK(r.sh({"diff", "--cached", "--name-only"}) == "tests/test_gemm.py\n");
  // Declared paths are clean in the index now.
  CHECK(r.sh({"status", "--porcelain", "--", "kernels"}).empty());
  CHECK_THROWS_AS(repo.commitPaths({"kernels/gemm.py"}, "again"), GitError);  // nothing changed
  CHECK_THROWS_AS(repo.commitPaths({"no/such/file"}, "x"), GitError);
}

TEST_CASE("commitPaths falls back to kopt as the identity when none is configured") {
  TempRepo r("ident");
  r.sh({"config", "--unset", "user.name"});
  r.sh({"config", "--unset", "user.email"});
  EnvGuard env;
  env.set("GIT_CONFIG_GLOBAL", "/dev/null");
  env.set("GIT_CONFIG_NOSYSTEM", "1");
  env.set("GIT_AUTHOR_NAME", nullptr);
  env.set("GIT_AUTHOR_EMAIL", nullptr);
  env.set("GIT_COMMITTER_NAME", nullptr);
  env.set("GIT_COMMITTER_EMAIL", nullptr);
  env.set("EMAIL", nullptr);
  GitRepo repo(r.dir);
  r.write("kernels/gemm.py", "BLOCK_M = 32\n");
  repo.commitPaths({"kernels/gemm.py"}, "m");
  CHECK(r.sh({"log", "-1", "--format=%an <%ae>|%cn <%ce>"}) == "kopt <kopt@localhost>|kopt <kopt@localhost>\n");
}

TEST_CASE("changedSince lists modified, deleted, added and untracked paths, not .kopt/") {
  TempRepo r("changed");
  GitRepo repo(r.dir);
  std::string head = repo.headCommit();
  CHECK(repo.changedSince(head).empty());
  r.write("kernels/gemm.py", "changed\n");
  fs::remove(r.dir / "README.md");
  r.write("kernels/staged_new.py", "n\n");
  r.sh({"add", "kernels/staged_new.py"});
  r.write("kernels/untracked.py", "u\n");
  r.write(".kopt/campaigns/c/state.json", "{}");
  auto changes = repo.changedSince(head);
  std::vector<ChangedPath> expected = {{"README.md", ChangeKind::Deleted},
                                       {"kernels/gemm.py", ChangeKind::Modified},
                                       {"kernels/staged_new.py", ChangeKind::Added},
                                       {"kernels/untracked.py", ChangeKind::Untracked}};
  CHECK(changes == expected);
}

TEST_CASE("changedSince sees by content what index bits and a clean filter hide from git diff") {
  TempRepo r("hidden");
  GitRepo repo(r.dir);
  const std::string head = repo.headCommit();
  r.sh({"update-index", "--assume-unchanged", "kernels/util.py"});
  r.write("kernels/util.py", "def f(): return 1\n");
  r.sh({"update-index", "--skip-worktree", "README.md"});
  r.write("README.md", "edited behind a skip-worktree bit\n");
  // a clean filter that hands git the committed text whatever the file holds
  r.write(".git/info/attributes", "tests/* filter=hide\n");
  r.sh({"config", "filter.hide.clean", "printf 'def test(): pass\\n'"});
  r.write("tests/test_gemm.py", "def test(): assert False\n");
  REQUIRE(r.sh({"diff", "--name-only", head}).empty());  // what git itself reports
  std::vector<ChangedPath> expected = {{"README.md", ChangeKind::Modified},
                                       {"kernels/util.py", ChangeKind::Modified},
                                       {"tests/test_gemm.py", ChangeKind::Modified}};
  CHECK(repo.changedSince(head) == expected);
  fs::remove(r.dir / "kernels/util.py");
  expected[1].kind = ChangeKind::Deleted;
  CHECK(repo.changedSince(head) == expected);
}

TEST_CASE("changedSince compares a symbolic link by its target") {
  TempRepo r("links");
  fs::create_symlink("gemm.py", r.dir / "kernels/current.py");
  r.sh({"add", "kernels/current.py"});
  r.sh({"commit", "-q", "-m", "link"});
  GitRepo repo(r.dir);
  const std::string head = repo.headCommit();
  CHECK(repo.changedSince(head).empty());
  fs::remove(r.dir / "kernels/current.py");
  fs::create_symlink("util.py", r.dir / "kernels/current.py");
  CHECK(repo.changedSince(head) == std::vector<ChangedPath>{{"kernels/current.py", ChangeKind::Modified}});
}

TEST_CASE("restorePaths makes the scope exactly the commit's tree and leaves the rest alone") {
  TempRepo r("restore");
  GitRepo repo(r.dir);
  std::string accepted = repo.headCommit();
  r.write("kernels/gemm.py", "BLOCK_M = 256\n");
  fs::remove(r.dir / "kernels/util.py");
  r.write("kernels/sub/new_file.py", "new\n");
  r.write("kernels/staged.py", "s\n");
  r.sh({"add", "kernels/staged.py"});
  r.write("README.md", "outside scope\n");
  r.write("scratch.txt", "outside scope, untracked\n");
  r.write(".gitignore", "*.pyc\n");
  r.write("kernels/cache.pyc", "ignored build output\n");

  repo.restorePaths(accepted, {"kernels"});
  CHECK(r.read("kernels/gemm.py") == "BLOCK_M = 64\n");
  CHECK(r.read("kernels/util.py") == "def f(): pass\n");
  CHECK_FALSE(fs::exists(r.dir / "kernels/sub/new_file.py"));
  CHECK_FALSE(fs::exists(r.dir / "kernels/sub"));
  CHECK_FALSE(fs::exists(r.dir / "kernels/staged.py"));
  CHECK(fs::exists(r.dir / "kernels/cache.pyc"));  // ignored files are not the kernel's
  CHECK(r.read("README.md") == "outside scope\n");
  CHECK(r.read("scratch.txt") == "outside scope, untracked\n");
  CHECK(r.sh({"status", "--porcelain", "--", "kernels"}).empty());
  for (const auto& c : repo.changedSince(accepted)) CHECK(c.path.rfind("kernels/", 0) != 0);

  // A scope naming single files, one of which the commit lacks.
  r.write("kernels/gemm.py", "x\n");
  r.write("kernels/extra.py", "y\n");
  repo.restorePaths(accepted, {"kernels/gemm.py", "kernels/extra.py"});
  CHECK(r.read("kernels/gemm.py") == "BLOCK_M = 64\n");
  CHECK_FALSE(fs::exists(r.dir / "kernels/extra.py"));
}

TEST_CASE("snapshotFiles copies files and directories with their layout") {
  TempRepo r("snap");
  GitRepo repo(r.dir);
  r.write("kernels/deep/a.py", "a\n");
  auto dest = r.dir / ".kopt" / "snap";
  auto copied = repo.snapshotFiles({"kernels", "README.md", "missing.py"}, dest);
  CHECK(copied == std::vector<std::string>{"README.md", "kernels/deep/a.py", "kernels/gemm.py", "kernels/util.py"});
  CHECK(readFile(dest / "kernels/deep/a.py") == "a\n");
  CHECK(readFile(dest / "README.md") == "readme\n");
}

TEST_CASE("addExclude keeps .kopt/ out of git, once") {
  TempRepo r("exclude");
  GitRepo repo(r.dir);
  r.write(".kopt/campaigns/c/manifest.yaml", "x");
  CHECK(r.sh({"ls-files", "--others", "--exclude-standard"}).find(".kopt") != std::string::npos);
  repo.addExclude();
  repo.addExclude();
  CHECK(r.sh({"ls-files", "--others", "--exclude-standard"}).find(".kopt") == std::string::npos);
  std::string exclude = readFile(r.dir / ".git/info/exclude");
  CHECK(exclude.find(".kopt/\n") != std::string::npos);
  CHECK(exclude.find(".kopt/\n") == exclude.rfind(".kopt/\n"));
}

TEST_CASE("best worktree: add at a commit, move, remove; fileAt reads a commit's file") {
  TempRepo r("worktree");
  GitRepo repo(r.dir);
  repo.addExclude();
  std::string first = repo.headCommit();
  r.write("kernels/gemm.py", "BLOCK_M = 128\n");
  std::string second = repo.commitPaths({"kernels/gemm.py"}, "second");
  auto wt = r.dir / ".kopt/campaigns/c/worktrees/best";
  repo.addWorktree(wt, first);
  CHECK(readFile(wt / "kernels/gemm.py") == "BLOCK_M = 64\n");
  repo.checkoutWorktree(wt, second);
  CHECK(readFile(wt / "kernels/gemm.py") == "BLOCK_M = 128\n");
  repo.addWorktree(wt, first);  // re-adding over an existing one replaces it
  CHECK(readFile(wt / "kernels/gemm.py") == "BLOCK_M = 64\n");
  CHECK(repo.currentBranch() == std::optional<std::string>("main"));
  repo.removeWorktree(wt);
  CHECK_FALSE(fs::exists(wt));
  CHECK(r.sh({"worktree", "list", "--porcelain"}).find("worktrees/best") == std::string::npos);
  CHECK(repo.fileAt(first, "kernels/gemm.py") == std::optional<std::string>("BLOCK_M = 64\n"));
  CHECK_FALSE(repo.fileAt(first, "kernels/none.py").has_value());
}

TEST_CASE("accepted-round commit message follows the contract") {
  CommitMessageInput in;
  in.op = "gemm_fp8_blockwise";
  in.backend = "TRITON";
  in.round = 4;
  in.oneLine = "BLOCK_M 64 -> 128";
  in.hypothesis = "I expect fwd to improve because\nfewer loads";
  in.before = 301;
  in.after = 319;
  in.unit = "TFLOPS";
  in.campaignDir = "/r/.kopt/campaigns/c";
  CHECK(acceptedRoundMessage(in) ==
        "[optimize] gemm_fp8_blockwise TRITON round-4: BLOCK_M 64 -> 128\n\n"
        "Hypothesis: I expect fwd to improve because fewer loads\n"
        "Result: geomean 301 -> 319 TFLOPS (+6.0%)\n"
        "Details: /r/.kopt/campaigns/c/logs/optimize.md\n");
}

TEST_CASE("kopt's git ignores the repository's hooks, replace refs and inherited GIT_* variables (docs/integrity.md, class 3)") {
  TempRepo r("neutral");
  // Hooks the agent installs: one refuses every commit, one rewrites the kernel after a commit.
  r.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 1\n");
  r.write(".git/hooks/post-commit", "#!/bin/sh\necho 'BLOCK_M = 1' > kernels/gemm.py\ntouch hook-ran\n");
  fs::permissions(r.dir / ".git/hooks/pre-commit", fs::perms::owner_all);
  fs::permissions(r.dir / ".git/hooks/post-commit", fs::perms::owner_all);
  GitRepo repo(r.dir);
  r.write("kernels/gemm.py", "BLOCK_M = 128\n");
  const std::string commit = repo.commitPaths({"kernels/gemm.py"}, "round 2");
  CHECK_FALSE(fs::exists(r.dir / "hook-ran"));
  CHECK(r.read("kernels/gemm.py") == "BLOCK_M = 128\n");
  CHECK(repo.fileAt(commit, "kernels/gemm.py") == std::optional<std::string>("BLOCK_M = 128\n"));

  // A replace ref that makes kopt's commit read as another tree.
  const std::string forgedBlob = kopt::util::trim(runGit(r.dir, {"hash-object", "-w", "--stdin"}, {}, "BLOCK_M = 8\n").out);
  r.sh({"update-index", "--cacheinfo", "100644," + forgedBlob + ",kernels/gemm.py"});
  const std::string forgedTree = kopt::util::trim(r.sh({"write-tree"}));
  const std::string forged = kopt::util::trim(
      runGit(r.dir, {"commit-tree", forgedTree, "-p", commit}, {{"GIT_AUTHOR_NAME", "a"}, {"GIT_AUTHOR_EMAIL", "a@x"},
                                                               {"GIT_COMMITTER_NAME", "a"}, {"GIT_COMMITTER_EMAIL", "a@x"}},
             "forged\n")
          .out);
  r.sh({"reset", "-q"});
  REQUIRE(runGit(r.dir, {"replace", commit, forged}).ok());
  CHECK(repo.fileAt(commit, "kernels/gemm.py") == std::optional<std::string>("BLOCK_M = 128\n"));
  CHECK(repo.resolve("HEAD") == commit);

  // Variables of the agent's shell that would point git at another index or object store.
  EnvGuard env;
  env.set("GIT_INDEX_FILE", (r.dir / "bogus-index").c_str());
  env.set("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='.git/hooks'");
  CHECK(repo.changedSince(commit).empty());
  CHECK_FALSE(fs::exists(r.dir / "bogus-index"));
}

TEST_CASE("a worktree holds the commit's bytes whatever the repository's filters and attributes (referee hole 3)") {
  TempRepo r("filters");
  GitRepo repo(r.dir);
  r.write("kernels/run.sh", "#!/bin/sh\necho fast\n");
  fs::permissions(r.dir / "kernels/run.sh", fs::perms::owner_all);
  r.sh({"add", "kernels/run.sh"});
  r.sh({"commit", "-q", "-m", "script"});
  const std::string commit = kopt::util::trim(r.sh({"rev-parse", "HEAD"}));
  // What the agent can write: a smudge filter and the attributes that apply it, an eol rule.
  r.sh({"config", "filter.slow.smudge", "sed s/64/1/"});
  r.sh({"config", "filter.slow.clean", "cat"});
  r.write(".git/info/attributes", "kernels/gemm.py filter=slow\nREADME.md text eol=crlf\n");
  const fs::path tree = r.dir.parent_path() / ("kopt_git_filters_tree_" + std::to_string(::getpid()));
  repo.addWorktree(tree, commit);
  // the attack works on a plain checkout
  CHECK(readFile(tree / "kernels/gemm.py") == "BLOCK_M = 1\n");
  CHECK(readFile(tree / "README.md") == "readme\r\n");
  auto rewritten = repo.rewriteAsCommitted(tree, commit);
  std::sort(rewritten.begin(), rewritten.end());
  CHECK(rewritten == std::vector<std::string>{"README.md", "kernels/gemm.py"});
  CHECK(readFile(tree / "kernels/gemm.py") == "BLOCK_M = 64\n");
  CHECK(readFile(tree / "README.md") == "readme\n");
  CHECK((fs::status(tree / "kernels/run.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK(repo.rewriteAsCommitted(tree, commit).empty());  // nothing left to rewrite
  repo.removeWorktree(tree);
}
