#pragma once
// One process as /proc/<pid>/stat shows it, and a walk over every process of the machine. Shared
// by the process-group helpers (process_group.h) and the stray finder (stray_processes.h).
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

namespace kopt::exec {

struct ProcStat {
  std::string name;  // comm (field 2), at most 15 bytes, as the kernel keeps it
  char state = '?';
  pid_t ppid = 0;
  pid_t pgrp = 0;
  pid_t session = 0;
  // utime + stime + cutime + cstime, in clock ticks.
  std::uint64_t cpuTicks = 0;

  bool zombie() const { return state == 'Z' || state == 'X'; }
};

// Parses /proc/<pid>/stat; false when the process is gone (or /proc is not Linux's).
bool readProcStat(pid_t pid, ProcStat& out);

// Calls fn(pid, stat) for every process whose stat could be read.
void forEachProcess(const std::function<void(pid_t, const ProcStat&)>& fn);

}  // namespace kopt::exec
