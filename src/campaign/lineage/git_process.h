#pragma once
// Running `git` and capturing its (small) output. A minimal posix_spawn wrapper rather than
// exec::Executor: git commands are short, need their stdout back as a string (not in a log file),
// and must not depend on the executor being ready; environment kept (but no GIT_* variable other
// than the user's identity), plus LC_ALL=C so messages are stable, GIT_TERMINAL_PROMPT=0 so
// nothing ever waits for a password. Every call sees the repository neutrally (docs/integrity.md,
// referee hole 3): no hooks, no fsmonitor, no system config, no global attributes, replace refs ignored.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kopt::campaign::lineage {

struct GitOutput {
  int exitCode = -1;  // -1: could not start / killed by a signal
  std::string out;
  std::string err;
  bool ok() const { return exitCode == 0; }
};

// git -C <cwd> <args...>; `stdinText` is fed to the child's stdin.
GitOutput runGit(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& extraEnv = {},
                 const std::string& stdinText = "");

}  // namespace kopt::campaign::lineage
