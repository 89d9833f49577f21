#include "exec/process_group.h"

#include <dirent.h>
#include <sched.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kopt::exec {
namespace {

struct ProcStat {
  char state = '?';
  pid_t pgrp = 0;
  pid_t session = 0;
  std::uint64_t cpuTicks = 0;
};

// Parses /proc/<pid>/stat. The command name (field 2) may contain spaces and parentheses, so the
// fields after it are found from the *last* ')'.
bool readStat(pid_t pid, ProcStat& out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "re");
  if (!f) return false;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* close = std::strrchr(buf, ')');
  if (!close || close[1] == '\0') return false;
  // Fields from 3 on: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  //                    utime stime cutime cstime ...
  char state = '?';
  int ppid = 0, pgrp = 0, session = 0, tty = 0, tpgid = 0;
  unsigned flags = 0;
  unsigned long minflt = 0, cminflt = 0, majflt = 0, cmajflt = 0, utime = 0, stime = 0;
  long cutime = 0, cstime = 0;
  const int got = std::sscanf(close + 2, "%c %d %d %d %d %d %u %lu %lu %lu %lu %lu %lu %ld %ld",
                              &state, &ppid, &pgrp, &session, &tty, &tpgid, &flags, &minflt,
                              &cminflt, &majflt, &cmajflt, &utime, &stime, &cutime, &cstime);
  if (got != 15) return false;
  out.state = state;
  out.pgrp = pgrp;
  out.session = session;
  out.cpuTicks = utime + stime + static_cast<std::uint64_t>(cutime > 0 ? cutime : 0) +
                 static_cast<std::uint64_t>(cstime > 0 ? cstime : 0);
  return true;
}

template <typename Fn>
void forEachProcess(Fn fn) {
  DIR* dir = opendir("/proc");
  if (!dir) return;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    ProcStat st;
    if (readStat(static_cast<pid_t>(pid), st)) fn(static_cast<pid_t>(pid), st);
  }
  closedir(dir);
}

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
  return st.state != 'Z' && st.state != 'X' && (st.pgrp == leader || st.session == leader);
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

bool groupStopped(pid_t leader) {
  bool any = false, all = true;
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    if (!belongs(st, leader)) return;
    any = true;
    // A process's stat shows its main thread only; every thread must have taken the stop.
    const bool listed = forEachThread(pid, [&](pid_t tid) {
      char path[96];
      std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
      FILE* f = std::fopen(path, "re");
      if (!f) return;  // the thread ended meanwhile
      char buf[512];
      const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      buf[n] = '\0';
      const char* close = std::strrchr(buf, ')');
      const char state = close && close[1] ? close[2] : '?';
      if (state != 'T' && state != 't' && state != 'Z' && state != 'X') all = false;
    });
    if (!listed) all = all && (st.state == 'T' || st.state == 't');
  });
  return any && all;
}

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
  if (!readStat(pid, st)) return false;
  return st.state != 'Z' && st.state != 'X';
}

}  // namespace kopt::exec
