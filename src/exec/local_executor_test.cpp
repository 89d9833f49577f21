#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>

#include "exec/executor.h"
#include "exec/process_group.h"
#include "exec/test_support.h"

using namespace kopt::exec;
using namespace kopt::exec::testing;
using namespace std::chrono_literals;

namespace {

CommandSpec shell(const TempDir& dir, const std::string& script) { return shellCommand(dir, script); }

RunResult run(const CommandSpec& spec, const RunObserver& observer = {}) {
  return makeLocalExecutor()->run(spec, observer);
}

// A run must leave no child of ours unreaped.
void checkNoZombie() {
  errno = 0;
  CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
}

}  // namespace

TEST_CASE("exit codes come back, stdout and stderr go to their files") {
  TempDir dir("exit");
  CHECK(run(shell(dir, "true")).ok());
  auto r = run(shell(dir, "exit 3"));
  CHECK(str(r.outcome) == str(RunOutcome::Exited));
  CHECK(r.exitCode == 3);
  CHECK_FALSE(r.ok());
  CHECK(r.error.find("exited with code 3") != std::string::npos);

  CommandSpec spec = shell(dir, "echo out; echo err >&2");
  spec.stderrPath = dir / "err.txt";
  CHECK(run(spec).ok());
  CHECK(readFile(dir / "out.txt") == "out\n");
  CHECK(readFile(dir / "err.txt") == "err\n");

  spec.stderrPath.clear();  // stderr joins stdout
  CHECK(run(spec).ok());
  CHECK(readFile(dir / "out.txt") == "out\nerr\n");
  checkNoZombie();
}

TEST_CASE("argv is passed without a shell; env and cwd reach the child") {
  TempDir dir("env");
  std::filesystem::create_directories(dir / "work dir");
  CommandSpec spec;
  spec.argv = {"printf", "%s|%s|", "a b", "$HOME*"};
  spec.stdoutPath = dir / "logs" / "out.txt";  // parent directories are created
  CHECK(run(spec).ok());
  CHECK(readFile(dir / "logs" / "out.txt") == "a b|$HOME*|");

  spec = shell(dir, "echo \"$KOPT_X $KOPT_Y\"; pwd");
  spec.env = {{"KOPT_X", "one"}, {"KOPT_Y", "two words"}};
  spec.cwd = dir / "work dir";
  CHECK(run(spec).ok());
  CHECK(readFile(dir / "out.txt") == "one two words\n" + (dir / "work dir").string() + "\n");
}

TEST_CASE("stdin is /dev/null, so a command reading input does not wait forever") {
  TempDir dir("stdin");
  CommandSpec spec;
  spec.argv = {"cat"};
  spec.stdoutPath = dir / "out.txt";
  spec.timeout = 30s;
  auto r = run(spec);
  CHECK(r.ok());
  CHECK(readFile(dir / "out.txt").empty());
}

TEST_CASE("a missing program, cwd or an unrunnable file is FailedToStart with a clear error") {
  TempDir dir("start");
  CommandSpec spec = shell(dir, "true");
  spec.argv = {"kopt-no-such-program-xyz"};
  auto r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("'kopt-no-such-program-xyz' not found on PATH") != std::string::npos);

  spec.argv = {"./missing.sh"};
  r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("does not exist") != std::string::npos);

  spec = shell(dir, "true");
  spec.cwd = dir / "nope";
  r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("working directory") != std::string::npos);

  // Executable bit but not a program: execve itself fails (ENOEXEC) inside Boost.Process.
  writeFile(dir / "garbage", std::string("\x7f" "ELF garbage", 12));
  ::chmod((dir / "garbage").c_str(), 0755);
  spec = shell(dir, "true");
  spec.argv = {(dir / "garbage").string()};
  r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("could not start") != std::string::npos);

  writeFile(dir / "plain.txt", "x");
  spec.argv = {(dir / "plain.txt").string()};
  r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("not an executable") != std::string::npos);

  spec = shell(dir, "true");
  spec.stdoutPath = "/proc/kopt-cannot-write-here/out.txt";
  r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("cannot open output file") != std::string::npos);

  spec.argv.clear();
  CHECK(str(run(spec).outcome) == str(RunOutcome::FailedToStart));
  checkNoZombie();
}

TEST_CASE("a PATH given in the command's env is the one searched") {
  TempDir dir("path");
  std::filesystem::create_directories(dir / "bin");
  writeFile(dir / "bin" / "kopt-hello", "#!/bin/sh\necho hello from bin\n");
  ::chmod((dir / "bin" / "kopt-hello").c_str(), 0755);
  CommandSpec spec = shell(dir, "");
  spec.argv = {"kopt-hello"};
  spec.env = {{"PATH", (dir / "bin").string() + ":/usr/bin:/bin"}};
  CHECK(run(spec).ok());
  CHECK(readFile(dir / "out.txt") == "hello from bin\n");
}

TEST_CASE("a crash is Signaled with the signal's name") {
  TempDir dir("crash");
  auto r = run(shell(dir, "kill -SEGV $$"));
  CHECK(str(r.outcome) == str(RunOutcome::Signaled));
  CHECK(r.signal == SIGSEGV);
  CHECK(r.error.find("SIGSEGV") != std::string::npos);
  checkNoZombie();
}

TEST_CASE("a timeout kills the process group") {
  TempDir dir("timeout");
  CommandSpec spec;
  spec.argv = {"sleep", "30"};
  spec.stdoutPath = dir / "out.txt";
  spec.timeout = 100ms;
  auto r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::TimedOut));
  CHECK(r.signal == SIGTERM);
  CHECK(r.error.find("timed out") != std::string::npos);
  checkNoZombie();
}

TEST_CASE("a command that ignores SIGTERM is killed after the grace period") {
  TempDir dir("term");
  CommandSpec spec = shell(dir, "trap '' TERM; echo $$ > " + (dir / "pid").string() + "; echo ready; while :; do :; done");
  spec.killGrace = 100ms;
  RunObserver observer;
  observer.onProgress = [&](const RunProgress& p) {
    if (p.lastLine == "ready") observer.cancel.cancel();
  };
  auto r = run(spec, observer);
  CHECK(str(r.outcome) == str(RunOutcome::Cancelled));
  CHECK(r.signal == SIGKILL);
  const pid_t pid = pidFromFile(dir / "pid");
  REQUIRE(pid > 0);
  CHECK(::kill(pid, 0) == -1);
  checkNoZombie();
}

TEST_CASE("no output and no CPU for hangAfter is Hung; CPU use alone is not a hang") {
  TempDir dir("hang");
  CommandSpec spec;
  spec.argv = {"sleep", "30"};
  spec.stdoutPath = dir / "out.txt";
  spec.hangAfter = 300ms;
  auto r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::Hung));
  CHECK(r.error.find("no output and no CPU") != std::string::npos);

  // Busy but silent: the CPU time keeps it alive until the (longer) timeout.
  spec = shell(dir, "while :; do :; done");
  spec.hangAfter = 1s;
  spec.timeout = 3s;
  r = run(spec);
  CHECK(str(r.outcome) == str(RunOutcome::TimedOut));
}

TEST_CASE("cancelling kills the child and its grandchildren") {
  TempDir dir("cancel");
  const std::string pids = (dir / "pids").string();
  // The grandchild is a background `sleep 1000`; both pids are written before "started".
  CommandSpec spec = shell(dir, "sleep 1000 & echo $! > " + pids + ".grandchild; echo $$ > " + pids +
                                    ".child; echo started; wait");
  RunObserver observer;
  observer.onProgress = [&](const RunProgress& p) {
    if (p.lastLine == "started") observer.cancel.cancel();
  };
  auto r = run(spec, observer);
  CHECK(str(r.outcome) == str(RunOutcome::Cancelled));
  const pid_t child = pidFromFile(pids + ".child");
  const pid_t grandchild = pidFromFile(pids + ".grandchild");
  REQUIRE(child > 0);
  REQUIRE(grandchild > 0);
  CHECK(::kill(child, 0) == -1);  // reaped by us: gone entirely
  CHECK_FALSE(processAlive(grandchild));  // reparented to init: gone or a zombie awaiting init
  checkNoZombie();
}

TEST_CASE("a background process left behind by a finished command is stopped") {
  TempDir dir("leftover");
  CommandSpec spec = shell(dir, "sleep 1000 >/dev/null & echo $! > " + (dir / "pid").string());
  CHECK(run(spec).ok());
  const pid_t grandchild = pidFromFile(dir / "pid");
  REQUIRE(grandchild > 0);
  CHECK_FALSE(processAlive(grandchild));
}

TEST_CASE("progress reports output growth and the last complete stdout line") {
  TempDir dir("progress");
  CommandSpec spec = shell(dir, "echo first; echo second; exec sleep 30");
  RunObserver observer;
  std::uintmax_t bytes = 0;
  observer.onProgress = [&](const RunProgress& p) {
    if (p.lastLine == "second") {
      bytes = p.outputBytes;
      observer.cancel.cancel();
    }
  };
  auto r = run(spec, observer);
  CHECK(str(r.outcome) == str(RunOutcome::Cancelled));
  CHECK(bytes == 13);
}

TEST_CASE("a progress callback that throws stops the command instead of leaking it") {
  TempDir dir("throw");
  CommandSpec spec = shell(dir, "echo hi; exec sleep 30");
  RunObserver observer;
  observer.onProgress = [](const RunProgress&) { throw std::runtime_error("boom"); };
  auto r = run(spec, observer);
  CHECK(str(r.outcome) == str(RunOutcome::Cancelled));
  CHECK(r.error.find("boom") != std::string::npos);
}

TEST_CASE("a lot of output goes straight to the file without blocking the child") {
  TempDir dir("big");
  CommandSpec spec = shell(dir, "head -c 20000000 /dev/zero; head -c 3000000 /dev/zero >&2");
  spec.stderrPath = dir / "err.txt";
  CHECK(run(spec).ok());
  CHECK(std::filesystem::file_size(dir / "out.txt") == 20000000u);
  CHECK(std::filesystem::file_size(dir / "err.txt") == 3000000u);
}

TEST_CASE("toString names every outcome") {
  CHECK(std::string(toString(RunOutcome::Exited)) == "exited");
  CHECK(std::string(toString(RunOutcome::Lost)) == "lost");
  CHECK(std::string(toString(RunOutcome::FailedToStart)) == "failed_to_start");
}
