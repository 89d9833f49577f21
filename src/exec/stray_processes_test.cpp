#include "exec/stray_processes.h"

#include <doctest/doctest.h>

#include <fstream>

#include "exec/executor.h"
#include "exec/process_group.h"
#include "exec/test_support.h"

using namespace kopt::exec;
using namespace kopt::exec::testing;

namespace {

RunResult runShell(const TempDir& dir, const std::string& script) {
  CommandSpec spec = shellCommand(dir, script);
  spec.cwd = dir.path();
  return makeLocalExecutor()->run(spec, {});
}

pid_t pidIn(const TempDir& dir, const char* file) {
  std::ifstream in(dir / file);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

}  // namespace

TEST_CASE("a command that leaves a daemon in a session of its own fails, and the daemon is ended") {
  REQUIRE(becomeSubreaper());
  TempDir dir("stray_setsid");
  // The pid file is written after setsid: the command ends only once the daemon is out of its
  // session (ending earlier, the session cleanup could catch the daemon before it left).
  const RunResult r = runShell(dir, "setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' & "
                                    "while [ ! -s daemon.pid ]; do :; done; exit 0");
  const pid_t daemon = pidIn(dir, "daemon.pid");
  REQUIRE(daemon > 0);
  CHECK_FALSE(r.ok());
  CHECK(r.exitCode == 0);
  // Named as it was when caught: 'sh' before its exec of sleep, 'sleep' after.
  CHECK(r.escaped.find("1 process escaped its command's session: pid " + std::to_string(daemon) + " '") == 0);
  CHECK(r.error.find("kopt ended it") != std::string::npos);
  CHECK_FALSE(processAlive(daemon));
  CHECK(findStrayProcesses().empty());
}

TEST_CASE("a double-forked daemon comes back to kopt, the subreaper, and is ended too") {
  REQUIRE(becomeSubreaper());
  TempDir dir("stray_double_fork");
  const RunResult r = runShell(dir, "( setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' & ); "
                                    "while [ ! -s daemon.pid ]; do :; done; exit 0");
  const pid_t daemon = pidIn(dir, "daemon.pid");
  REQUIRE(daemon > 0);
  CHECK_FALSE(r.ok());
  CHECK(r.escaped.find("pid " + std::to_string(daemon)) != std::string::npos);
  CHECK_FALSE(processAlive(daemon));
}

TEST_CASE("a daemon that holds the command's pipe open is ended while the command runs, so it cannot stall it") {
  REQUIRE(becomeSubreaper());
  TempDir dir("stray_pipe");
  // $(...) waits for EOF on its pipe, which the daemon holds: without the scan during the run this
  // command would run into its 60 s limit.
  const RunResult r = runShell(dir, "x=$(setsid sleep 300 & echo started); echo \"$x\"");
  CHECK((r.outcome == RunOutcome::Exited));
  CHECK(r.exitCode == 0);
  CHECK_FALSE(r.ok());
  CHECK(r.escaped.rfind("1 process escaped its command's session: ", 0) == 0);
  CHECK(readFile(dir / "out.txt") == "started\n");
}

TEST_CASE("background work that stays in the command's session is the command's: ended, not a stray") {
  REQUIRE(becomeSubreaper());
  TempDir dir("stray_none");
  const RunResult clean = runShell(dir, "exit 0");
  CHECK(clean.ok());
  CHECK(clean.escaped.empty());
  const RunResult background = runShell(dir, "sleep 300 & echo $! > job.pid; exit 0");
  CHECK(background.ok());  // the session cleanup ends it; nothing escaped
  CHECK(background.escaped.empty());
  CHECK_FALSE(processAlive(pidIn(dir, "job.pid")));
}

TEST_CASE("stray texts name every process, up to five") {
  CHECK(strayText({}).empty());
  CHECK(strayText({{12, 10, "sleep"}}) == "1 process escaped its command's session: pid 12 'sleep' (session 10); kopt ended it");
  std::vector<StrayProcess> many(7, StrayProcess{5, 5, "x"});
  const std::string text = strayText(many);
  CHECK(text.rfind("7 processes escaped their command's session: ", 0) == 0);
  CHECK(text.find(", ...; kopt ended them") != std::string::npos);
}
