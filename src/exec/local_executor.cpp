// The local backend: Boost.Process v1 starts the child; everything after the start (waiting,
// timeouts, hang detection, killing) is done here against the child's session, because
// Boost.Process v1 only knows the one pid and a kernel-tuning command is usually a tree
// (python -> compiler -> benchmark).
//
// "The command" is the child's session: every process that kept its session or process group.
// A grandchild that starts its own session (a daemon that calls setsid) escapes, as it would
// from any process-group-based supervisor; kopt's own commands (builds, tests, benches) do not.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <variant>

#include "exec/executor.h"
#include "exec/output_tail.h"
#include "exec/process_group.h"
#include "exec/stray_processes.h"

namespace bp = boost::process;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace kopt::exec {
namespace {

constexpr milliseconds kProgressEvery{250};  // at most ~4 progress callbacks a second
constexpr milliseconds kActivityEvery{200};  // how often the group's CPU time is sampled
constexpr milliseconds kMaxPoll{50};
constexpr milliseconds kStrayScanEvery{500};  // a /proc walk: a few ms
constexpr milliseconds kReapWait{5000};  // after SIGKILL, how long to wait for the group to vanish

std::string errnoText(int err) { return std::strerror(err); }

// Runs in the forked child before execve: only async-signal-safe calls here.
struct ChildSetup : bp::extend::handler {
  int outFd = -1;
  int errFd = -1;
  const char* cwd = nullptr;  // nullptr: keep the server's

  template <typename Executor>
  void on_exec_setup(Executor& e) const {
    ::setsid();  // own session and process group: kopt signals the whole tree, and a terminal's ^C
                 // does not reach the child twice
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the server may block signals in its threads
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);
    const int devNull = ::open("/dev/null", O_RDONLY);
    if (devNull >= 0) ::dup2(devNull, STDIN_FILENO);
    if (::dup2(outFd, STDOUT_FILENO) < 0 || ::dup2(errFd, STDERR_FILENO) < 0) fail(e, "dup2");
    if (cwd && ::chdir(cwd) != 0) fail(e, "chdir");
  }

  // Boost.Process v1 would carry on to execve after an exec-setup error; stop right here so the
  // command never runs in the wrong directory or with the wrong output.
  template <typename Executor>
  void fail(Executor& e, const char* what) const {
    e.set_error(std::error_code(errno, std::system_category()), what);
    ::_exit(127);
  }

  // Boost.Process v1 returns an empty child when execve (or the setup above) failed, without
  // reaping the forked process; reap it here so a failed start never leaves a zombie.
  template <typename Executor>
  void on_error(Executor& e, const std::error_code&) const {
    if (e.pid > 0) {
      int status = 0;
      while (::waitpid(e.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
};

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

RunResult failedToStart(std::string error, Clock::time_point start) {
  RunResult r;
  r.outcome = RunOutcome::FailedToStart;
  r.error = std::move(error);
  r.wallTime = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return r;
}

bool isExecutableFile(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// argv[0] as execve will see it: with a '/', relative to the child's cwd; without, searched in
// the PATH the *child* gets (a manifest may set its own PATH).
std::variant<fs::path, std::string> resolveProgram(const CommandSpec& spec) {
  const std::string& prog = spec.argv.front();
  if (prog.empty()) return std::string("the program name (argv[0]) is empty");
  if (prog.find('/') != std::string::npos) {
    const fs::path p = (fs::path(prog).is_absolute() || spec.cwd.empty()) ? fs::path(prog) : spec.cwd / prog;
    if (!fs::exists(p)) return "program '" + prog + "' does not exist";
    if (!isExecutableFile(p)) return "program '" + prog + "' is not an executable file";
    return fs::path(prog);
  }
  std::string path;
  if (auto it = spec.env.find("PATH"); it != spec.env.end()) {
    path = it->second;
  } else if (const char* p = std::getenv("PATH")) {
    path = p;
  }
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    fs::path dir = path.substr(begin, end - begin);
    if (dir.empty()) dir = spec.cwd.empty() ? fs::current_path() : spec.cwd;
    if (dir.is_relative() && !spec.cwd.empty()) dir = spec.cwd / dir;
    if (isExecutableFile(dir / prog)) return dir / prog;
    begin = end + 1;
  }
  return "program '" + prog + "' not found on PATH (" + path + "); give its full path or fix PATH";
}

int openOutput(const fs::path& path, std::string& error) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) error = "cannot open output file '" + path.string() + "': " + errnoText(errno);
  return fd;
}

std::string signalText(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  std::string text = "signal " + std::to_string(sig);
  if (abbrev) text += std::string(" (SIG") + abbrev + ": " + ::strsignal(sig) + ")";
  return text;
}

std::string durationText(milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

// Waits for a process group to empty, up to `limit`.
bool waitGroupEmpty(pid_t leader, milliseconds limit) {
  const auto until = Clock::now() + limit;
  milliseconds pause{1};
  while (!groupEmpty(leader)) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, kMaxPoll);
  }
  return true;
}

// TERM, a grace period, then KILL: for the whole group, whatever the leader's state.
void stopGroup(pid_t leader, milliseconds grace) {
  signalGroup(leader, SIGTERM);
  if (waitGroupEmpty(leader, grace)) return;
  signalGroup(leader, SIGKILL);
  waitGroupEmpty(leader, kReapWait);
}

class LocalExecutor final : public Executor {
 public:
  std::string name() const override { return "local"; }

  RunResult run(const CommandSpec& spec, const RunObserver& observer) override {
    const auto start = Clock::now();
    if (spec.argv.empty()) return failedToStart("nothing to run: argv is empty", start);
    if (spec.stdoutPath.empty()) return failedToStart("no stdout path given for the command's output", start);
    if (!spec.cwd.empty() && !fs::is_directory(spec.cwd)) {
      return failedToStart("working directory '" + spec.cwd.string() + "' does not exist", start);
    }
    auto resolved = resolveProgram(spec);
    if (auto* err = std::get_if<std::string>(&resolved)) return failedToStart(*err, start);

    std::string openError;
    Fd out(openOutput(spec.stdoutPath, openError));
    if (out.get() < 0) return failedToStart(openError, start);
    Fd errFile(spec.stderrPath.empty() ? -1 : openOutput(spec.stderrPath, openError));
    if (!spec.stderrPath.empty() && errFile.get() < 0) return failedToStart(openError, start);

    bp::environment env = boost::this_process::environment();
    for (const auto& [key, value] : spec.env) env[key] = value;

    ChildSetup setup;
    setup.outFd = out.get();
    setup.errFd = errFile.get() >= 0 ? errFile.get() : out.get();
    const std::string cwd = spec.cwd.string();
    setup.cwd = spec.cwd.empty() ? nullptr : cwd.c_str();

    std::error_code ec;
    std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
    // Registered before any stray scan can see it (stray_processes.h); forgotten once reaped.
    auto spawning = OwnChildren::spawnLock();
    bp::child child(bp::exe = std::get<fs::path>(resolved).string(), bp::args = args, bp::env = env, setup, ec);
    if (!ec && child.valid()) OwnChildren::add(child.id());
    spawning.unlock();
    if (ec || !child.valid()) {
      return failedToStart("could not start '" + spec.argv.front() + "': " + ec.message(), start);
    }
    return wait(child, spec, observer, start);
  }

 private:
  RunResult wait(bp::child& child, const CommandSpec& spec, const RunObserver& observer,
                 Clock::time_point start) {
    const pid_t pid = child.id();
    const bool separateErr = !spec.stderrPath.empty();
    auto outputBytes = [&] {
      return fileSize(spec.stdoutPath) + (separateErr ? fileSize(spec.stderrPath) : 0);
    };

    std::optional<RunOutcome> killedFor;
    std::string killReason;
    std::uintmax_t lastBytes = 0, reportedBytes = 0;
    std::uint64_t lastCpu = 0;
    auto lastActivity = start;
    auto lastCpuSample = start;
    auto lastProgress = start - kProgressEvery;
    milliseconds pause{1};
    bool lostChild = false;
    // Processes that left the session are ended as soon as they are seen, not only at the end: a
    // daemon holding the command's pipe open would otherwise keep a shell waiting until the hang limit.
    std::vector<StrayProcess> escapedProcesses;
    auto lastStrayScan = start;
    auto endStrays = [&] {
      for (auto& s : endStrayProcesses()) escapedProcesses.push_back(std::move(s));
    };

    auto stopFor = [&](RunOutcome why, std::string reason) {
      killedFor = why;
      killReason = std::move(reason);
      stopGroup(pid, spec.killGrace);
    };

    for (;;) {
      // WNOWAIT: notice the exit but keep the leader as a zombie, so its pid (the group id) cannot
      // be reused while the rest of the group is cleaned up below.
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno == EINTR) continue;
        lostChild = true;  // ECHILD: someone set SIGCHLD to SIG_IGN or reaped our child
        break;
      }
      if (info.si_pid == pid) break;

      const auto now = Clock::now();
      const auto elapsed = std::chrono::duration_cast<milliseconds>(now - start);
      const std::uintmax_t bytes = outputBytes();
      if (bytes != lastBytes) {
        lastBytes = bytes;
        lastActivity = now;
      }
      if (spec.hangAfter.count() > 0 && now - lastCpuSample >= kActivityEvery) {
        lastCpuSample = now;
        const std::uint64_t cpu = snapshotGroup(pid).cpuTicks;
        if (cpu != lastCpu) {
          lastCpu = cpu;
          lastActivity = now;
        }
      }

      if (now - lastStrayScan >= kStrayScanEvery) {
        lastStrayScan = now;
        endStrays();
      }
      if (bytes != reportedBytes && now - lastProgress >= kProgressEvery && observer.onProgress) {
        reportedBytes = bytes;
        lastProgress = now;
        try {
          observer.onProgress(RunProgress{elapsed, bytes, lastCompleteLine(spec.stdoutPath)});
        } catch (const std::exception& e) {
          stopFor(RunOutcome::Cancelled, std::string("stopped: the progress callback failed: ") + e.what());
          break;
        } catch (...) {
          stopFor(RunOutcome::Cancelled, "stopped: the progress callback failed");
          break;
        }
      }

      if (observer.cancel.cancelled()) {
        stopFor(RunOutcome::Cancelled, "cancelled after " + durationText(elapsed));
        break;
      }
      if (spec.timeout.count() > 0 && elapsed >= spec.timeout) {
        stopFor(RunOutcome::TimedOut, "timed out after " + durationText(spec.timeout) + " (the limit); the process group was killed");
        break;
      }
      if (spec.hangAfter.count() > 0 && now - lastActivity >= spec.hangAfter) {
        stopFor(RunOutcome::Hung, "hung: no output and no CPU time for " + durationText(spec.hangAfter) + "; the process group was killed");
        break;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, kMaxPoll);
    }

    // The command is over (or was stopped); anything it left running in its group goes too, so a
    // stray background process can neither disturb the next measurement nor outlive kopt.
    if (!killedFor && !groupEmpty(pid)) stopGroup(pid, spec.killGrace);
    // What left the session (setsid, double fork) was re-parented to kopt, the subreaper: end it,
    // and refuse the command (docs/integrity.md, referee hole 7).
    endStrays();
    const std::string escaped = strayText(escapedProcesses);

    RunResult result;
    result.escaped = escaped;
    std::error_code ec;
    if (!lostChild) child.wait(ec);
    OwnChildren::remove(pid);
    result.wallTime = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
    if (lostChild || ec) {
      result.outcome = RunOutcome::Lost;
      result.error = "lost track of the child process (was SIGCHLD ignored?)";
      return result;
    }
    const int status = child.native_exit_code();
    if (killedFor) {
      result.outcome = *killedFor;
      result.error = killReason;
      if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    } else if (WIFSIGNALED(status)) {
      result.outcome = RunOutcome::Signaled;
      result.signal = WTERMSIG(status);
      result.error = "'" + spec.argv.front() + "' was killed by " + signalText(result.signal);
    } else {
      result.outcome = RunOutcome::Exited;
      result.exitCode = WEXITSTATUS(status);
      if (result.exitCode != 0) {
        result.error = "'" + spec.argv.front() + "' exited with code " + std::to_string(result.exitCode);
      }
    }
    if (!escaped.empty()) result.error += (result.error.empty() ? "" : "; ") + escaped;
    return result;
  }
};

}  // namespace

std::unique_ptr<Executor> makeLocalExecutor() { return std::make_unique<LocalExecutor>(); }

}  // namespace kopt::exec
