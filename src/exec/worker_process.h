#pragma once
// A long-lived child that answers one line per request over pipes (harness/WORKER-PROTOCOL.md): the
// bench workers kopt alternates batches between. Unlike Executor::run, whose commands write only
// to files, this child is talked to, so it gets a stdin and a stdout pipe; its stderr goes to a
// log file. It runs in a session of its own so that stop()/resume() (SIGSTOP/SIGCONT) and
// terminate() reach every process it started, and nothing it does reaches kopt's own terminal.
//
// Local processes only: a Slurm step cannot be stopped and resumed batch by batch from here.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/cancellation.h"

namespace kopt::exec {

struct WorkerSpec {
  std::vector<std::string> argv;                // argv[0] resolved through PATH when it has no '/'
  std::map<std::string, std::string> env;       // added to (and overriding) kopt's environment
  std::filesystem::path cwd;                    // empty: kopt's cwd
  std::filesystem::path stderrPath;             // required: the worker's log (created/truncated)
  std::optional<int> cpu;                       // pin the worker (and what it starts) to this CPU
};

// What reading a reply line came to.
enum class LineStatus { Line, Eof, TimedOut, Cancelled, TooLong };
const char* lineStatusName(LineStatus status);  // not toString: doctest would pick that up as its printer

class WorkerProcess {
 public:
  WorkerProcess() = default;
  ~WorkerProcess();  // terminate()s a worker that is still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Starts the child; false with error() set when it could not be started (argv[0] not found, cwd
  // missing, log not writable). A start failure of execve itself shows as Eof on the first read.
  bool start(const WorkerSpec& spec);
  const std::string& error() const { return error_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // One request line (a '\n' is appended). False when the child closed its stdin or died.
  bool writeLine(const std::string& line);
  // The next reply line without its '\n'. Waits at most `timeout`; a line longer than `maxBytes`
  // is TooLong (a harness that floods its reply channel is broken, not slow).
  LineStatus readLine(std::string& line, std::chrono::milliseconds timeout, const CancellationToken& cancel,
                      std::size_t maxBytes = 64u << 20);

  // SIGSTOP / SIGCONT to the worker's process group and to the members of its session outside
  // the group that the last allStopped() found. No /proc scan: the runner switches arms every
  // few ms, and a scan costs about 1 ms per hundred processes on the machine; allStopped() scans.
  void stop();
  void resume();
  // True when every live process of the worker's session is stopped (state T in /proc): the idle
  // arm is really idle while the other arm's batch runs. A member that joined the session outside
  // the process group since the last scan (setpgid) is stopped here and signalled from then on.
  // A thread waiting for a CPU takes the stop only when it next runs, which on a loaded 2-core
  // machine took more than the 500 ms this waited before (a loaded CI run lost a session, likely
  // that way). Waits up to `within` for the kernel to deliver the stop to every thread.
  bool allStopped(std::chrono::milliseconds within = std::chrono::milliseconds(2000));

  // Pins every thread of every process of the worker's session to `cpus` (and so what they start
  // later). Two workers start and prepare a shape in parallel on any CPU, then share one while
  // they measure. Call it while the worker is stopped; false when some thread could not be pinned.
  bool pinTo(const std::set<int>& cpus);

  // Closes stdin, waits `grace` for the child to leave, then SIGKILLs the session and reaps it.
  // Returns the wait status description ("exited 0", "killed by signal 9").
  std::string terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));
  // The exit description once the child is gone ("exited 3", "killed by signal 11"); empty while
  // it runs.
  std::string exitDescription();

 private:
  pid_t pid_ = -1;
  int toChild_ = -1;    // the child's stdin
  int fromChild_ = -1;  // the child's stdout
  std::string buffer_;  // bytes read past the last returned line
  std::string error_;
  std::optional<int> waitStatus_;
  std::vector<pid_t> outsideGroup_;  // session members outside the process group, as last scanned
  bool stopReported_ = false;        // waitpid(WUNTRACED) said the worker stopped since resume()
  void signalAll(int sig);
  bool reap(bool block);
};

}  // namespace kopt::exec
