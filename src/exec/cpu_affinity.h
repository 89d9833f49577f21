#pragma once
// The CPU both bench workers of a measurement run on. Cores of one machine are not equally fast
// (a VM's vCPU that shares a physical core with a busy neighbour read 45% slower than its
// sibling on our 2-core build machine), and Linux keeps a process on the core it started on: two
// fresh worker processes on different cores differ by the cores' speed for their whole session,
// a process-level effect no number of blocks averages out. Only one worker runs at a time (the
// idle one is stopped), so both share one core: the one that was idlest just before.
#include <map>
#include <optional>
#include <set>
#include <string>

namespace kopt::exec {

// The CPUs this process may run on (sched_getaffinity); empty when unreadable.
std::set<int> allowedCpus();

// The CPU to pin bench workers to: the highest-numbered allowed CPU (CPU 0 takes most interrupts
// on a typical machine), or none when fewer than 2 CPUs are allowed (nothing to choose between).
std::optional<int> benchWorkerCpu(const std::set<int>& allowed);

// One CPU's cumulative time from /proc/stat, in ticks: idle (idle + iowait) and everything.
// Steal time counts as busy: a vCPU whose host core is shared reads it.
struct CpuTicks {
  long long idle = 0;
  long long total = 0;
};
// The per-CPU lines ("cpuN ...") of a /proc/stat text; malformed lines are skipped.
std::map<int, CpuTicks> parseProcStat(const std::string& text);

// Of the allowed CPUs, the one idlest between two /proc/stat snapshots (ties: the highest
// number); benchWorkerCpu(allowed) when the snapshots say nothing about them.
std::optional<int> quietestCpu(const std::set<int>& allowed, const std::map<int, CpuTicks>& before,
                               const std::map<int, CpuTicks>& after);

// quietestCpu over the next `sampleMs` milliseconds of this machine (reads /proc/stat twice):
// two measurements started at once on a 2-core machine land on different cores, not both on
// the highest one.
std::optional<int> quietBenchWorkerCpu(int sampleMs = 100);

}  // namespace kopt::exec
