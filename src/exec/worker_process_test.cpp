#include "exec/worker_process.h"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>

#include "exec/cpu_affinity.h"
#include "exec/proc_stat.h"
#include "exec/process_group.h"
#include "exec/test_support.h"

using namespace std::chrono_literals;
using kopt::CancellationToken;
using kopt::exec::LineStatus;
using kopt::exec::WorkerProcess;
using kopt::exec::WorkerSpec;
using kopt::exec::testing::TempDir;

namespace {

// A worker in shell: answers "got <line>" per request; "quiet" is read and never answered;
// "spawn" starts a child in the worker's session that sleeps (stop/resume must reach it too);
// "regroup" starts one that moves to a process group of its own and answers with its pid.
WorkerSpec echoWorker(const TempDir& dir) {
  WorkerSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "while IFS= read -r l; do case \"$l\" in quiet) ;; spawn) sleep 30 & echo spawned ;; "
               "regroup) python3 -c 'import os, time; os.setpgid(0, 0); print(os.getpid(), flush=True); "
               "time.sleep(30)' & ;; "
               "err) echo oops >&2; echo \"got $l\" ;; *) echo \"got $l\" ;; esac; done"};
  spec.stderrPath = dir / "worker.log";
  return spec;
}

}  // namespace

TEST_CASE("a worker answers one line per request and exits 0 when its stdin closes") {
  TempDir dir("worker_echo");
  WorkerProcess w;
  REQUIRE(w.start(echoWorker(dir)));
  CHECK(w.running());
  std::string line;
  for (const char* req : {"hello", "{\"id\":2}", "err"}) {
    REQUIRE(w.writeLine(req));
    REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
    CHECK(line == std::string("got ") + req);
  }
  CHECK(w.terminate() == "exited 0");
  CHECK_FALSE(w.running());
  CHECK(kopt::exec::testing::readFile(dir / "worker.log") == "oops\n");
}

TEST_CASE("a request the worker never answers times out, and cancellation ends the wait") {
  TempDir dir("worker_quiet");
  WorkerProcess w;
  REQUIRE(w.start(echoWorker(dir)));
  std::string line;
  REQUIRE(w.writeLine("quiet"));
  CHECK(w.readLine(line, 200ms, CancellationToken{}) == LineStatus::TimedOut);
  CancellationToken cancel;
  cancel.cancel();
  CHECK(w.readLine(line, 10s, cancel) == LineStatus::Cancelled);
  // The worker is still usable after both.
  REQUIRE(w.writeLine("again"));
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  CHECK(line == "got again");
}

TEST_CASE("stop() stops every process of the worker's session, resume() lets them run again") {
  TempDir dir("worker_stop");
  WorkerProcess w;
  REQUIRE(w.start(echoWorker(dir)));
  std::string line;
  REQUIRE(w.writeLine("spawn"));
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  CHECK(line == "spawned");
  CHECK(kopt::exec::snapshotGroup(w.pid()).members.size() >= 2);
  CHECK_FALSE(w.allStopped(0ms));
  w.stop();
  CHECK(w.allStopped());
  w.resume();
  // A stopped worker could not answer; a resumed one does.
  REQUIRE(w.writeLine("after"));
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  CHECK(line == "got after");
  CHECK_FALSE(w.allStopped(0ms));
  const pid_t leader = w.pid();
  w.terminate(1s);
  // The sleeping child of the session went with it.
  CHECK(kopt::exec::groupEmpty(leader));
}

TEST_CASE("a member that left the worker's process group (setpgid) is stopped and resumed with it") {
  TempDir dir("worker_regroup");
  WorkerProcess w;
  REQUIRE(w.start(echoWorker(dir)));
  std::string line;
  REQUIRE(w.writeLine("regroup"));
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  const pid_t member = static_cast<pid_t>(std::stol(line));
  kopt::exec::ProcStat st;
  REQUIRE(kopt::exec::readProcStat(member, st));
  REQUIRE(st.pgrp != w.pid());  // killpg(worker) alone does not reach it
  w.stop();
  CHECK(w.allStopped());
  REQUIRE(kopt::exec::readProcStat(member, st));
  CHECK(st.state == 'T');
  w.resume();  // SIGCONT wakes a stopped process before kill() returns
  REQUIRE(kopt::exec::readProcStat(member, st));
  CHECK(st.state != 'T');
  w.stop();  // now without a scan: the last allStopped() told it about the member
  // groupStopped() only looks (allStopped() would stop the member itself); a SIGSTOP to a running
  // process is taken when it next runs, so this waits for the kernel, bounded.
  bool stopped = false;
  for (const auto until = std::chrono::steady_clock::now() + 5s; !stopped && std::chrono::steady_clock::now() < until;) {
    stopped = kopt::exec::groupStopped(w.pid());
  }
  CHECK(stopped);
  const pid_t leader = w.pid();
  w.terminate(1s);
  CHECK(kopt::exec::groupEmpty(leader));
}

TEST_CASE("a worker that dies shows as EOF, and its exit is described") {
  TempDir dir("worker_dies");
  WorkerSpec spec;
  spec.argv = {"/bin/sh", "-c", "read l; echo half-a-line | tr -d '\\n'; exit 3"};
  spec.stderrPath = dir / "worker.log";
  WorkerProcess w;
  REQUIRE(w.start(spec));
  REQUIRE(w.writeLine("x"));
  std::string line;
  // An unterminated last line is not a reply.
  CHECK(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Eof);
  CHECK(w.terminate() == "exited 3");
  // Writing to a worker that is gone fails instead of raising SIGPIPE in kopt.
  CHECK_FALSE(w.writeLine("y"));
}

TEST_CASE("a reply line longer than the limit is refused") {
  TempDir dir("worker_flood");
  WorkerSpec spec;
  spec.argv = {"/bin/sh", "-c", "read l; head -c 300000 /dev/zero | tr '\\0' 'x'; echo"};
  spec.stderrPath = dir / "worker.log";
  WorkerProcess w;
  REQUIRE(w.start(spec));
  REQUIRE(w.writeLine("x"));
  std::string line;
  CHECK(w.readLine(line, 10s, CancellationToken{}, 1000) == LineStatus::TooLong);
}

TEST_CASE("a pinned worker, and what it starts, runs on that CPU alone") {
  TempDir dir("kopt-worker-cpu");
  const std::set<int> cpus = kopt::exec::allowedCpus();
  REQUIRE_FALSE(cpus.empty());
  WorkerSpec spec;
  // A child of the worker reports its own affinity: the pin is inherited by everything it starts.
  spec.argv = {"/bin/sh", "-c", "read l; sh -c 'grep Cpus_allowed_list /proc/self/status'"};
  spec.stderrPath = dir / "worker.log";
  spec.cpu = *cpus.rbegin();
  WorkerProcess w;
  REQUIRE(w.start(spec));
  REQUIRE(w.writeLine("go"));
  std::string line;
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  CHECK(line.substr(line.find_last_of(" \t") + 1) == std::to_string(*cpus.rbegin()));
  w.terminate();
}

namespace {
std::string cpusAllowedOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Cpus_allowed_list:", 0) == 0) return line.substr(line.find_last_of(" \t") + 1);
  }
  return "?";
}
}  // namespace

TEST_CASE("pinTo() pins a started worker's processes, and what they start later inherits the pin") {
  TempDir dir("kopt-worker-pin");
  const std::set<int> cpus = kopt::exec::allowedCpus();
  REQUIRE_FALSE(cpus.empty());
  const std::string cpu = std::to_string(*cpus.begin());
  WorkerProcess w;
  REQUIRE(w.start(echoWorker(dir)));  // unpinned: it may run on any allowed CPU
  std::string line;
  REQUIRE(w.writeLine("spawn"));
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  w.stop();
  REQUIRE(w.allStopped());
  REQUIRE(w.pinTo({*cpus.begin()}));
  const auto before = kopt::exec::snapshotGroup(w.pid()).members;
  REQUIRE(before.size() >= 2);
  for (pid_t pid : before) CHECK(cpusAllowedOf(pid) == cpu);
  w.resume();
  REQUIRE(w.writeLine("spawn"));
  REQUIRE(w.readLine(line, 10s, CancellationToken{}) == LineStatus::Line);
  const auto after = kopt::exec::snapshotGroup(w.pid()).members;
  CHECK(after.size() > before.size());
  for (pid_t pid : after) CHECK(cpusAllowedOf(pid) == cpu);
  w.terminate();
  CHECK_FALSE(w.pinTo({*cpus.begin()}));  // nothing left to pin
}

TEST_CASE("a worker that cannot start says why") {
  TempDir dir("worker_start");
  WorkerProcess w;
  WorkerSpec spec;
  spec.argv = {"kopt-no-such-program-anywhere"};
  spec.stderrPath = dir / "worker.log";
  CHECK_FALSE(w.start(spec));
  CHECK(w.error().find("not found") != std::string::npos);
  spec.argv = {"/bin/sh"};
  spec.cwd = dir / "missing";
  CHECK_FALSE(w.start(spec));
  CHECK(w.error().find("does not exist") != std::string::npos);
  CHECK_FALSE(w.running());
}
