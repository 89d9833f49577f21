#include "campaign/lineage/git_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <set>

#include "exec/stray_processes.h"

extern char** environ;

namespace kopt::campaign::lineage {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void close(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  ~Pipe() {
    close(0);
    close(1);
  }
};

std::vector<std::string> buildEnv(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  // A neutral view of the repository (docs/integrity.md, referee hole 3): no inherited GIT_* variable reaches git
  // (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_CONFIG_PARAMETERS/COUNT would each change
  // what it reads) except the user's identity and their choice of global config file (whose
  // dangerous settings the command line overrides below); no system config; replace refs
  // ignored, so a commit kopt names is the commit it made.
  static const std::set<std::string> kept = {"GIT_AUTHOR_NAME",    "GIT_AUTHOR_EMAIL",    "GIT_AUTHOR_DATE",
                                              "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
                                              "GIT_CONFIG_GLOBAL"};
  for (auto it = env.begin(); it != env.end();) {
    it = it->first.rfind("GIT_", 0) == 0 && !kept.count(it->first) ? env.erase(it) : std::next(it);
  }
  env["LC_ALL"] = "C";
  env["GIT_TERMINAL_PROMPT"] = "0";
  env["GIT_CONFIG_NOSYSTEM"] = "1";
  env["GIT_NO_REPLACE_OBJECTS"] = "1";
  env["GIT_ATTR_NOSYSTEM"] = "1";
  for (const auto& kv : extra) env[kv.first] = kv.second;
  std::vector<std::string> out;
  for (const auto& kv : env) out.push_back(kv.first + "=" + kv.second);
  return out;
}

// A child that exits without reading its stdin must not kill the server with SIGPIPE; block the
// signal for this thread around the write and swallow it if it was raised, without touching the
// process-wide disposition.
ssize_t writeNoSigpipe(int fd, const char* data, std::size_t size) {
  sigset_t pipeSet, oldSet;
  sigemptyset(&pipeSet);
  sigaddset(&pipeSet, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
  ssize_t n = ::write(fd, data, size);
  int saved = errno;
  // The kernel raises SIGPIPE even when the reader vanishes part way through a large write that
  // then returns a short count, so look at what is pending rather than at the return value.
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
    timespec zero{0, 0};
    sigtimedwait(&pipeSet, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &oldSet, nullptr);
  errno = saved;
  return n;
}

}  // namespace

GitOutput runGit(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& extraEnv, const std::string& stdinText) {
  GitOutput result;
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) {
    result.err = std::string("pipe failed: ") + std::strerror(errno);
    return result;
  }
  // Settings of the repository or the user that would run the agent's code or hide changes from
  // kopt are overridden on the command line, which wins over every config file: hooks (a
  // post-commit hook could rewrite what kopt just committed), fsmonitor (a daemon that answers
  // "nothing changed"), the untracked cache, and a global attributes file.
  std::vector<std::string> argvStore = {"git",
                                        "-C",
                                        cwd.string(),
                                        "-c",
                                        "core.hooksPath=/dev/null",
                                        "-c",
                                        "core.fsmonitor=false",
                                        "-c",
                                        "core.untrackedCache=false",
                                        "-c",
                                        "core.attributesFile=/dev/null"};
  argvStore.insert(argvStore.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argvStore) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envStore = buildEnv(extraEnv);
  std::vector<char*> envp;
  for (auto& e : envStore) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  pid_t pid = -1;
  int rc = 0;
  {
    // Registered before any stray scan can see it (exec/stray_processes.h): kopt waits for it below.
    auto spawning = exec::OwnChildren::spawnLock();
    rc = posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), envp.data());
    if (rc == 0) exec::OwnChildren::add(pid);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.err = std::string("cannot start git: ") + std::strerror(rc);
    return result;
  }
  in.close(0);
  out.close(1);
  err.close(1);

  // Feed stdin and drain both outputs together so neither side can block on a full pipe.
  std::size_t written = 0;
  if (stdinText.empty()) in.close(1);
  char buf[65536];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    std::vector<pollfd> fds;
    if (in.fd[1] >= 0) fds.push_back({in.fd[1], POLLOUT, 0});
    if (out.fd[0] >= 0) fds.push_back({out.fd[0], POLLIN, 0});
    if (err.fd[0] >= 0) fds.push_back({err.fd[0], POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == in.fd[1]) {
        ssize_t n = writeNoSigpipe(in.fd[1], stdinText.data() + written, stdinText.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if (n < 0 && errno != EINTR && errno != EAGAIN) in.close(1);
        if (written >= stdinText.size()) in.close(1);
      } else {
        ssize_t n = ::read(p.fd, buf, sizeof buf);
        if (n > 0) {
          (p.fd == out.fd[0] ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          if (p.fd == out.fd[0]) out.close(0);
          else err.close(0);
        }
      }
    }
  }
  in.close(1);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  exec::OwnChildren::remove(pid);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace kopt::campaign::lineage
