#include "exec/proc_stat.h"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kopt::exec {

// The command name (field 2) may contain spaces and parentheses, so the fields after it are found
// from the *last* ')'.
bool readProcStat(pid_t pid, ProcStat& out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "re");
  if (!f) return false;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* open = std::strchr(buf, '(');
  const char* close = std::strrchr(buf, ')');
  if (!open || !close || close < open || close[1] == '\0') return false;
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
  out.name.assign(open + 1, close);
  out.state = state;
  out.ppid = ppid;
  out.pgrp = pgrp;
  out.session = session;
  out.cpuTicks = utime + stime + static_cast<std::uint64_t>(cutime > 0 ? cutime : 0) +
                 static_cast<std::uint64_t>(cstime > 0 ? cstime : 0);
  return true;
}

void forEachProcess(const std::function<void(pid_t, const ProcStat&)>& fn) {
  DIR* dir = opendir("/proc");
  if (!dir) return;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    ProcStat st;
    if (readProcStat(static_cast<pid_t>(pid), st)) fn(static_cast<pid_t>(pid), st);
  }
  closedir(dir);
}

}  // namespace kopt::exec
