#include "exec/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "exec/process_group.h"
#include "exec/stray_processes.h"

extern char** environ;

namespace kopt::exec {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const char* lineStatusName(LineStatus status) {
  switch (status) {
    case LineStatus::Line: return "line";
    case LineStatus::Eof: return "eof";
    case LineStatus::TimedOut: return "timed out";
    case LineStatus::Cancelled: return "cancelled";
    case LineStatus::TooLong: return "reply too long";
  }
  return "?";
}

namespace {

// argv[0] as execve needs it: a name without '/' is looked up in PATH here, before fork, so the
// child does nothing but async-signal-safe calls.
std::string resolveProgram(const std::string& name, const std::map<std::string, std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  std::string path;
  if (auto it = env.find("PATH"); it != env.end()) {
    path = it->second;
  } else if (const char* p = std::getenv("PATH")) {
    path = p;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = path.find(':', start);
    const std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

std::vector<std::string> mergedEnvironment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos && extra.count(kv.substr(0, eq))) continue;
    out.push_back(kv);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

WorkerProcess::~WorkerProcess() {
  if (running()) terminate(milliseconds(200));
}

bool WorkerProcess::start(const WorkerSpec& spec) {
  error_.clear();
  if (spec.argv.empty()) {
    error_ = "the worker command is empty";
    return false;
  }
  const std::string program = resolveProgram(spec.argv.front(), spec.env);
  if (program.empty()) {
    error_ = "'" + spec.argv.front() + "' was not found in PATH";
    return false;
  }
  if (!spec.cwd.empty() && !fs::is_directory(spec.cwd)) {
    error_ = "the working directory " + spec.cwd.string() + " does not exist";
    return false;
  }
  const int logFd = ::open(spec.stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (logFd < 0) {
    error_ = "cannot open the worker log " + spec.stderrPath.string() + ": " + std::strerror(errno);
    return false;
  }
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    error_ = std::string("pipe: ") + std::strerror(errno);
    ::close(logFd);
    return false;
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    error_ = std::string("pipe: ") + std::strerror(errno);
    ::close(logFd);
    ::close(in[0]);
    ::close(in[1]);
    return false;
  }
  // Everything the child needs is built before fork: after it only async-signal-safe calls.
  std::vector<std::string> envStrings = mergedEnvironment(spec.env);
  std::vector<char*> envp, argv;
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string cwd = spec.cwd.string();
  cpu_set_t pinned;
  CPU_ZERO(&pinned);
  if (spec.cpu) CPU_SET(*spec.cpu, &pinned);

  // Registered before any stray scan can see it (stray_processes.h); forgotten once reaped.
  auto spawning = OwnChildren::spawnLock();
  const pid_t pid = ::fork();
  if (pid > 0) OwnChildren::add(pid);
  spawning.unlock();
  if (pid < 0) {
    error_ = std::string("fork: ") + std::strerror(errno);
    for (int fd : {logFd, in[0], in[1], out[0], out[1]}) ::close(fd);
    return false;
  }
  if (pid == 0) {
    ::setsid();  // its own session: stop(), resume() and terminate() reach everything it starts
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(logFd, 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
    if (spec.cpu && ::sched_setaffinity(0, sizeof pinned, &pinned) != 0) ::_exit(126);
    ::execve(program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(logFd);
  ::close(in[0]);
  ::close(out[1]);
  pid_ = pid;
  toChild_ = in[1];
  fromChild_ = out[0];
  buffer_.clear();
  waitStatus_.reset();
  return true;
}

bool WorkerProcess::writeLine(const std::string& line) {
  if (toChild_ < 0) return false;
  std::string data = line + "\n";
  const char* p = data.data();
  std::size_t left = data.size();
  // A worker that died or closed stdin must not take kopt down with SIGPIPE: block it for this
  // thread while writing and swallow a pending one afterwards.
  sigset_t pipeSet, old;
  sigemptyset(&pipeSet);
  sigaddset(&pipeSet, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
  bool ok = true;
  while (left > 0) {
    const ssize_t n = ::write(toChild_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  sigset_t pending;
  sigpending(&pending);
  if (sigismember(&pending, SIGPIPE)) {
    const timespec zero{0, 0};
    ::sigtimedwait(&pipeSet, nullptr, &zero);
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

LineStatus WorkerProcess::readLine(std::string& line, milliseconds timeout, const CancellationToken& cancel,
                                   std::size_t maxBytes) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return LineStatus::Line;
    }
    if (buffer_.size() > maxBytes) return LineStatus::TooLong;
    if (fromChild_ < 0) return LineStatus::Eof;
    if (cancel.cancelled()) return LineStatus::Cancelled;
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return LineStatus::TimedOut;
    // Wake at least every 100 ms to see a cancellation.
    pollfd p{fromChild_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 100)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(fromChild_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      closeFd(fromChild_);
      continue;  // a last unterminated line is not a reply
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

void WorkerProcess::signalAll(int sig) {
  if (!running() || waitStatus_) return;  // reaped: its pid may name another process by now
  ::killpg(pid_, sig);
  for (pid_t member : outsideGroup_) ::kill(member, sig);
}

void WorkerProcess::stop() { signalAll(SIGSTOP); }

void WorkerProcess::resume() {
  stopReported_ = false;
  signalAll(SIGCONT);
}

bool WorkerProcess::allStopped(milliseconds within) {
  if (!running()) return false;
  const auto deadline = Clock::now() + within;
  while (true) {
    if (!stopReported_) {
      // The kernel reports a child's stop to its parent once every thread took it.
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WUNTRACED | WNOHANG);
      if (r == pid_ && WIFSTOPPED(status)) {
        stopReported_ = true;
      } else if (r == pid_) {
        waitStatus_ = status;  // it is gone: exited or killed
        OwnChildren::remove(pid_);
        return false;
      }
    }
    const GroupStopState state = inspectGroupStop(pid_, stopReported_ ? pid_ : 0);
    outsideGroup_ = state.outsideGroup;
    if (state.allStopped) return true;
    // New members outside the group did not get the group's SIGSTOP: they get theirs now.
    for (pid_t member : state.runningOutsideGroup) ::kill(member, SIGSTOP);
    if (Clock::now() >= deadline) return false;
    // The stop is delivered asynchronously to each thread; this is waiting for the kernel, not
    // for the worker, and it normally takes microseconds.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

bool WorkerProcess::pinTo(const std::set<int>& cpus) { return running() && pinGroup(pid_, cpus) == 0; }

bool WorkerProcess::reap(bool block) {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r == pid_) {
    waitStatus_ = status;
    OwnChildren::remove(pid_);
    return true;
  }
  if (r < 0 && errno == ECHILD) {
    waitStatus_ = 0;
    OwnChildren::remove(pid_);
    return true;
  }
  return false;
}

std::string WorkerProcess::exitDescription() {
  if (!waitStatus_ && pid_ > 0) reap(false);
  return waitStatus_ ? describeStatus(*waitStatus_) : "";
}

std::string WorkerProcess::terminate(milliseconds grace) {
  if (pid_ <= 0) return waitStatus_ ? describeStatus(*waitStatus_) : "";
  const pid_t leader = pid_;
  signalGroup(leader, SIGCONT);  // a stopped worker cannot see its stdin close
  closeFd(toChild_);
  const auto deadline = Clock::now() + grace;
  while (!waitStatus_ && Clock::now() < deadline) {
    if (reap(false)) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  // Whatever of the session is left (the worker itself after the grace, or its children) goes.
  signalGroup(leader, SIGKILL);
  if (!waitStatus_) reap(true);
  // SIGKILL is delivered when the victim next runs: on a loaded machine its children can still
  // be alive for milliseconds. Return only when nothing of the session runs (bounded), so the
  // other arm's next batch never shares the CPU with a dying worker.
  for (const auto gone = Clock::now() + milliseconds(2000); !groupEmpty(leader) && Clock::now() < gone;)
    std::this_thread::sleep_for(milliseconds(2));
  closeFd(fromChild_);
  pid_ = -1;
  return waitStatus_ ? describeStatus(*waitStatus_) : "";
}

}  // namespace kopt::exec
