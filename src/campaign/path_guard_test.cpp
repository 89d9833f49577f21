#include "campaign/path_guard.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "util/atomic_file.h"

using namespace kopt::campaign;
namespace fs = std::filesystem;

namespace {
struct Sandbox {
  fs::path base, root, outside;
  Sandbox() {
    base = fs::canonical(fs::temp_directory_path()) / ("kopt_guard_" + std::to_string(::getpid()));
    fs::remove_all(base);
    root = base / "repo";
    outside = base / "secret";
    fs::create_directories(root / "src" / "kernels");
    fs::create_directories(outside);
    kopt::util::writeFileAtomic(root / "src" / "kernels" / "gemm.py", "x");
    kopt::util::writeFileAtomic(outside / "key", "k");
  }
  ~Sandbox() { fs::remove_all(base); }
};
std::string refusal(const std::variant<fs::path, PathRefusal>& r) {
  REQUIRE(std::holds_alternative<PathRefusal>(r));
  return std::get<PathRefusal>(r).message;
}
fs::path ok(const std::variant<fs::path, PathRefusal>& r) {
  if (auto* p = std::get_if<PathRefusal>(&r)) FAIL(p->message);
  return std::get<fs::path>(r);
}
}  // namespace

TEST_CASE("paths inside the root resolve; relative and absolute") {
  Sandbox s;
  CHECK(ok(resolveInside(s.root, "src/kernels/gemm.py", "files[0]")) == s.root / "src/kernels/gemm.py");
  CHECK(ok(resolveInside(s.root, (s.root / "src").string(), "files[0]")) == s.root / "src");
  CHECK(ok(resolveInside(s.root, "src/./kernels/../kernels/new.py", "f")) == s.root / "src/kernels/new.py");
  CHECK(ok(resolveInside(s.root, "src/kernels/", "f")) == s.root / "src/kernels");
  CHECK(std::get<std::string>(relativeInside(s.root, "./src/kernels/gemm.py", "f")) ==
        "src/kernels/gemm.py");
  CHECK(std::get<std::string>(relativeInside(s.root, ".", "f")) == ".");
}

TEST_CASE("'..' escapes and absolute paths outside are refused, naming the argument") {
  Sandbox s;
  std::string m = refusal(resolveInside(s.root, "../secret/key", "files[2]"));
  CHECK(m.find("files[2] = '../secret/key'") == 0);
  CHECK(m.find("outside") != std::string::npos);
  CHECK(refusal(resolveInside(s.root, "src/../../secret", "f")).find("'..'") != std::string::npos);
  CHECK(refusal(resolveInside(s.root, (s.outside / "key").string(), "campaign_dir"))
            .find("absolute path outside") != std::string::npos);
  // A sibling whose name starts with the root's name is still outside.
  fs::create_directories(s.base / "repo2");
  refusal(resolveInside(s.root, (s.base / "repo2").string(), "f"));
  refusal(resolveInside(s.root, "", "f"));
}

TEST_CASE("symlinks leading outside are refused, dangling ones included") {
  Sandbox s;
  fs::create_directory_symlink(s.outside, s.root / "link_dir");
  fs::create_symlink(s.outside / "key", s.root / "link_file");
  fs::create_symlink(s.outside / "not_yet", s.root / "dangling");
  fs::create_directory_symlink(s.root / "src", s.root / "inner");
  fs::create_symlink("../../secret", s.root / "src" / "rel_escape");
  CHECK(refusal(resolveInside(s.root, "link_dir/key", "f")).find("symlink") != std::string::npos);
  CHECK(refusal(resolveInside(s.root, "link_file", "f")).find("symlink") != std::string::npos);
  CHECK(refusal(resolveInside(s.root, "dangling", "f")).find("symlink") != std::string::npos);
  CHECK(refusal(resolveInside(s.root, "src/rel_escape/key", "f")).find("symlink") != std::string::npos);
  // A symlink that stays inside is followed.
  CHECK(ok(resolveInside(s.root, "inner/kernels/gemm.py", "f")) == s.root / "src/kernels/gemm.py");
}

TEST_CASE("options: mustExist and allowRoot; a missing root is refused") {
  Sandbox s;
  PathGuardOptions o;
  o.mustExist = true;
  o.rootLabel = "the repository";
  CHECK(refusal(resolveInside(s.root, "src/nope.py", "f", o)).find("does not exist in the repository") !=
        std::string::npos);
  o.mustExist = false;
  o.allowRoot = false;
  CHECK(refusal(resolveInside(s.root, ".", "f", o)).find("itself") != std::string::npos);
  CHECK(refusal(resolveInside(s.base / "missing", "x", "f")).find("does not exist") != std::string::npos);
}

TEST_CASE("an absolute path spelled through a symlinked root is accepted") {
  Sandbox s;
  fs::create_directory_symlink(s.root, s.base / "alias");
  auto viaAlias = s.base / "alias";
  CHECK(ok(resolveInside(viaAlias, (viaAlias / "src/kernels/gemm.py").string(), "f")) ==
        s.root / "src/kernels/gemm.py");
  CHECK(ok(resolveInside(viaAlias, (s.root / "src").string(), "f")) == s.root / "src");
  refusal(resolveInside(viaAlias, (s.base / "alias/../secret/key").string(), "f"));
}
