#include "campaign/lineage/git_process.h"

#include <doctest/doctest.h>

#include <filesystem>

using namespace kopt::campaign::lineage;

TEST_CASE("runGit captures stdout, stderr and the exit code; stdin is fed") {
  auto tmp = std::filesystem::temp_directory_path();
  GitOutput v = runGit(tmp, {"--version"});
  CHECK(v.ok());
  CHECK(v.out.rfind("git version ", 0) == 0);
  GitOutput bad = runGit(tmp, {"no-such-subcommand"});
  CHECK_FALSE(bad.ok());
  CHECK(bad.err.find("no-such-subcommand") != std::string::npos);
  // hash-object reads stdin: the blob id of "hello\n" is well known.
  GitOutput h = runGit(tmp, {"hash-object", "--stdin"}, {}, "hello\n");
  CHECK(h.out == "ce013625030ba8dba906f756967f9e9ca394464a\n");
  GitOutput env = runGit(tmp, {"var", "GIT_AUTHOR_IDENT"}, {{"GIT_AUTHOR_NAME", "Ada"}, {"GIT_AUTHOR_EMAIL", "a@x"}});
  CHECK(env.out.rfind("Ada <a@x>", 0) == 0);
}

TEST_CASE("a big stdin to a child that never reads it does not hang or kill us") {
  std::string big(4 << 20, 'x');
  GitOutput o = runGit(std::filesystem::temp_directory_path(), {"--version"}, {}, big);
  CHECK(o.ok());
}
