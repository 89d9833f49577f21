#include "exec/orphans.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

using kopt::exec::endOrphansOfDeadServers;
using kopt::exec::processIdentity;

namespace {

// `sleep 30` with KOPT_SERVER=<server> as its whole environment.
pid_t sleeperOf(const std::string& server) {
  std::string var = std::string(kopt::exec::kServerVariable) + "=" + server;
  char* envp[] = {var.data(), nullptr};
  char sleepPath[] = "/bin/sleep";
  char seconds[] = "30";
  char* argv[] = {sleepPath, seconds, nullptr};
  pid_t pid = -1;
  REQUIRE(posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, envp) == 0);
  return pid;
}

bool contains(const std::vector<pid_t>& v, pid_t p) { return std::find(v.begin(), v.end(), p) != v.end(); }

}  // namespace

TEST_CASE("a process's identity is its pid and start time; a missing process has none") {
  const auto me = processIdentity(::getpid());
  REQUIRE(me);
  CHECK(me->rfind(std::to_string(::getpid()) + ":", 0) == 0);
  CHECK(me->size() > std::to_string(::getpid()).size() + 1);
  CHECK_FALSE(processIdentity(999999999));
}

TEST_CASE("processes of a dead kopt server are ended; those of a live one are left alone") {
  // pid 999999999 is above every pid_max: no such server runs.
  const pid_t orphan = sleeperOf("999999999:12345");
  const auto me = processIdentity(::getpid());
  REQUIRE(me);
  const pid_t owned = sleeperOf(*me);
  // Our own identity with another start time: the pid was reused by a new process.
  const pid_t reused = sleeperOf(std::to_string(::getpid()) + ":1");

  // posix_spawn returns once the child is in execve, before the kernel has set up the new
  // program's environment: wait until each one shows its KOPT_SERVER, as an orphan of a dead
  // server long since does.
  for (pid_t p : {orphan, owned, reused}) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream env("/proc/" + std::to_string(p) + "/environ");
      std::string text((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
      if (text.find(kopt::exec::kServerVariable) != std::string::npos) break;
      std::this_thread::yield();
    }
  }
  const auto report = endOrphansOfDeadServers();
  CHECK(contains(report.ended, orphan));
  CHECK(contains(report.ended, reused));
  CHECK_FALSE(contains(report.ended, owned));
  CHECK(report.stillAlive.empty());
  CHECK(std::find(report.deadServers.begin(), report.deadServers.end(), "999999999:12345") != report.deadServers.end());

  int status = 0;
  REQUIRE(::waitpid(orphan, &status, 0) == orphan);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  REQUIRE(::waitpid(reused, &status, 0) == reused);
  CHECK(processIdentity(owned));  // still running
  ::kill(owned, SIGKILL);
  ::waitpid(owned, &status, 0);
}
