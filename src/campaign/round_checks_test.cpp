#include "campaign/round_checks.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "campaign/lineage/git_process.h"
#include "util/atomic_file.h"
#include "util/text.h"

using namespace kopt::campaign;
using kopt::campaign::lineage::ChangedPath;
using kopt::campaign::lineage::ChangeKind;
namespace fs = std::filesystem;

namespace {

// A throwaway repository with its own identity, so the test never depends on the machine's config.
struct TempRepo {
  fs::path dir;
  explicit TempRepo(const std::string& tag) {
    dir = fs::canonical(fs::temp_directory_path()) / ("kopt_round_checks_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    git({"init", "-q", "-b", "main"});
    git({"config", "user.name", "Test User"});
    git({"config", "user.email", "test@example.com"});
  }
  ~TempRepo() { fs::remove_all(dir); }
  void git(const std::vector<std::string>& args) const {
    const auto o = lineage::runGit(dir, args);
    REQUIRE_MESSAGE(o.ok(), "git failed: ", kopt::util::join(args, " "), ": ", o.err);
  }
  void write(const std::string& rel, const std::string& text) const { kopt::util::writeFileAtomic(dir / rel, text); }
};

}  // namespace

TEST_CASE("round checks: the files outside the kernel sources are named by what happened to them") {
  const std::map<std::string, std::string> was = {{"bench.py", "aa"}, {"data.bin", "bb"}, {"old.sh", "cc"}, {"same.h", "dd"}};
  const std::map<std::string, std::string> now = {
      {"bench.py", "a2"}, {"data.bin", "<missing>"}, {"new.py", "ee"}, {"same.h", "dd"}};
  const auto named = namedFileChanges(was, now);
  // The files now (in path order) first, then those no longer tracked.
  CHECK(named == std::vector<std::string>{"bench.py (modified)", "data.bin (deleted)", "new.py (new)",
                                          "old.sh (no longer tracked)"});
  CHECK(namedFileChanges(was, was).empty());
}

TEST_CASE("round checks: more than eight changed files are cut to eight and a count") {
  std::map<std::string, std::string> now;
  for (int i = 0; i < 11; ++i) now["f" + std::to_string(10 + i)] = "x";
  const auto named = namedFileChanges({}, now);
  REQUIRE(named.size() == 9);
  CHECK(named.front() == "f10 (new)");
  CHECK(named[7] == "f17 (new)");
  CHECK(named.back() == "and 3 more");
  now.erase("f20");
  now.erase("f19");
  CHECK(namedFileChanges({}, now).size() == 9);  // exactly nine: still cut, "and 1 more"
  CHECK(namedFileChanges({}, now).back() == "and 1 more");
  now.erase("f18");
  CHECK(namedFileChanges({}, now).size() == 8);  // eight: all named
}

TEST_CASE("round checks: only paths outside every declared file or directory are undeclared") {
  const std::vector<ChangedPath> changed = {{"kernels/gemm.cu", ChangeKind::Modified},
                                            {"kernels/tile/conf.h", ChangeKind::Added},
                                            {"kernels2/x.cu", ChangeKind::Untracked},
                                            {"bench/run.py", ChangeKind::Deleted}};
  CHECK(undeclaredChanges(changed, {"kernels/"}) ==
        std::vector<std::string>{"kernels2/x.cu (untracked)", "bench/run.py (deleted)"});
  CHECK(undeclaredChanges(changed, {"kernels/gemm.cu"}) ==
        std::vector<std::string>{"kernels/tile/conf.h (added)", "kernels2/x.cu (untracked)", "bench/run.py (deleted)"});
  CHECK(undeclaredChanges(changed, {"kernels", "kernels2", "bench/run.py"}).empty());
  CHECK(undeclaredChanges({}, {}).empty());
}

TEST_CASE("round checks: the settings a config change makes are named per file against the round's head") {
  TempRepo repo("settings");
  repo.write("cfg.h", "#define TILE_M 64\n#define TILE_N 64\n");
  repo.write("other.h", "#define UNROLL 1\n");
  repo.git({"add", "-A"});
  repo.git({"commit", "-q", "-m", "initial"});
  lineage::GitRepo git(repo.dir);
  const std::string head = git.headCommit();

  repo.write("cfg.h", "#define TILE_M 48\n#define TILE_N 64\n");
  CHECK(changedSettings(git, head, git.changedSince(head)) == std::vector<std::string>{"cfg.h: TILE_M 64 -> 48"});

  repo.write("other.h", "#define UNROLL 4\n");
  CHECK(changedSettings(git, head, git.changedSince(head)) ==
        std::vector<std::string>{"cfg.h: TILE_M 64 -> 48", "other.h: UNROLL 1 -> 4"});
}
