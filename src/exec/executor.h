#pragma once
// Running the user's commands (build, tests, benchmarks). One interface, backends behind it:
// local (Boost.Process, the default) and Slurm. Callers describe *what* to run as argv + env; no
// shell is involved unless the argv itself names one. Output always goes to files, never through a
// pipe that can fill up and block the child.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/cancellation.h"

namespace kopt::exec {

struct CommandSpec {
  std::vector<std::string> argv;                 // argv[0] resolved through PATH when it has no '/'
  std::map<std::string, std::string> env;        // added to (and overriding) the server's environment
  std::filesystem::path cwd;                     // empty: the server's cwd
  std::filesystem::path stdoutPath;              // required: where stdout goes (created/truncated)
  std::filesystem::path stderrPath;              // empty: stderr goes to stdoutPath too
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // <= 0: no time limit
  // A hang: no new output *and* no CPU time used by the process group for this long. 0 = off.
  std::chrono::milliseconds hangAfter{0};
  // Between SIGTERM and SIGKILL when kopt stops the process group (timeout, hang, cancel), and
  // for members still running after the command itself exited.
  std::chrono::milliseconds killGrace{std::chrono::seconds(5)};
};

enum class RunOutcome {
  Exited,         // ran to completion; see exitCode
  Signaled,       // killed by a signal it did not ask for (crash); see signal
  TimedOut,       // kopt killed the process group at `timeout`
  Hung,           // kopt killed the process group after `hangAfter` without output or CPU
  Cancelled,      // kopt killed the process group because the token was cancelled
  FailedToStart,  // argv[0] not found, cwd missing, ... ; see error
  Lost,           // the backend lost the job (a Slurm node died); see error
};
const char* toString(RunOutcome outcome);

struct RunResult {
  RunOutcome outcome = RunOutcome::FailedToStart;
  int exitCode = -1;  // valid when outcome == Exited
  int signal = 0;     // valid when outcome == Signaled
  std::chrono::milliseconds wallTime{0};
  std::string error;  // human-readable cause when not a clean exit
  // Processes the command left running outside its session, which kopt ended (stray_processes.h);
  // empty when none. A command that leaves processes behind did not succeed, whatever its code.
  std::string escaped;
  bool ok() const { return outcome == RunOutcome::Exited && exitCode == 0 && escaped.empty(); }
};

// Observations while a command runs, for MCP progress notifications.
struct RunProgress {
  std::chrono::milliseconds elapsed{0};
  std::uintmax_t outputBytes = 0;  // stdout + stderr written so far
  std::string lastLine;            // last complete line of stdout, trimmed to 200 bytes
};

struct RunObserver {
  CancellationToken cancel;
  std::function<void(const RunProgress&)> onProgress;  // called from the waiting thread, at most ~4 Hz
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;  // "local", "slurm"
  // Blocks until the command ends, is killed, or is cancelled; never throws for a failing command.
  virtual RunResult run(const CommandSpec& spec, const RunObserver& observer) = 0;
};

std::unique_ptr<Executor> makeLocalExecutor();

}  // namespace kopt::exec
