#include "exec/process_group.h"

#include <dirent.h>
#include <sched.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "exec/proc_stat.h"

namespace kopt::exec {
namespace {

// Calls fn(tid) for every thread of `pid`; false when its task list could not be read.
template <typename Fn>
bool forEachThread(pid_t pid, Fn fn) {
  char dirPath[64];
  std::snprintf(dirPath, sizeof dirPath, "/proc/%d/task", static_cast<int>(pid));
  DIR* dir = opendir(dirPath);
  if (!dir) return false;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long tid = std::strtol(e->d_name, &end, 10);
    if (tid <= 0 || *end != '\0') continue;
    fn(static_cast<pid_t>(tid));
  }
  closedir(dir);
  return true;
}

bool belongs(const ProcStat& st, pid_t leader) {
  return !st.zombie() && (st.pgrp == leader || st.session == leader);
}

}  // namespace

GroupSnapshot snapshotGroup(pid_t leader) {
  GroupSnapshot snap;
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    if (!belongs(st, leader)) return;
    snap.members.push_back(pid);
    snap.cpuTicks += st.cpuTicks;
  });
  return snap;
}

void signalGroup(pid_t leader, int sig) {
  ::killpg(leader, sig);
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    if (belongs(st, leader) && st.pgrp != leader) ::kill(pid, sig);
  });
}

bool groupEmpty(pid_t leader) { return snapshotGroup(leader).members.empty(); }

GroupStopState inspectGroupStop(pid_t leader, pid_t wholeStopped) {
  GroupStopState state;
  bool all = true;
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    if (!belongs(st, leader)) return;
    state.any = true;
    // A process's stat shows its main thread only; every thread must have taken the stop.
    const bool mainStopped = st.state == 'T' || st.state == 't';
    bool stopped = true;
    const bool listed = pid == wholeStopped && mainStopped ? true : forEachThread(pid, [&](pid_t tid) {
      char path[96];
      std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
      FILE* f = std::fopen(path, "re");
      if (!f) return;  // the thread ended meanwhile
      char buf[512];
      const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      buf[n] = '\0';
      const char* close = std::strrchr(buf, ')');
      const char threadState = close && close[1] ? close[2] : '?';
      if (threadState != 'T' && threadState != 't' && threadState != 'Z' && threadState != 'X') stopped = false;
    });
    if (!listed) stopped = st.state == 'T' || st.state == 't';
    all = all && stopped;
    if (st.pgrp != leader) {
      state.outsideGroup.push_back(pid);
      if (!stopped) state.runningOutsideGroup.push_back(pid);
    }
  });
  state.allStopped = state.any && all;
  return state;
}

bool groupStopped(pid_t leader) { return inspectGroupStop(leader).allStopped; }

int pinGroup(pid_t leader, const std::set<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  int failed = 0;
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    if (!belongs(st, leader)) return;
    const bool listed = forEachThread(pid, [&](pid_t tid) {
      // ESRCH: the thread ended meanwhile, which pins nothing but breaks nothing either.
      if (::sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) ++failed;
    });
    if (!listed) ++failed;
  });
  return failed;
}

bool processAlive(pid_t pid) {
  ProcStat st;
  return readProcStat(pid, st) && !st.zombie();
}

}  // namespace kopt::exec
