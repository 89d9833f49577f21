#pragma once
// The CPU both bench workers of a measurement run on. Cores of one machine are not equally fast
// (a VM's vCPU that shares a physical core with a busy neighbour read 45% slower than its
// sibling on our 2-core build machine), and Linux keeps a process on the core it started on: two
// fresh worker processes on different cores differ by the cores' speed for their whole session,
// a process-level effect no number of blocks averages out. Only one worker runs at a time (the
// idle one is stopped), so both share one core.
#include <optional>
#include <set>

namespace kopt::exec {

// The CPUs this process may run on (sched_getaffinity); empty when unreadable.
std::set<int> allowedCpus();

// The CPU to pin bench workers to: the highest-numbered allowed CPU (CPU 0 takes most interrupts
// on a typical machine), or none when fewer than 2 CPUs are allowed (nothing to choose between).
std::optional<int> benchWorkerCpu(const std::set<int>& allowed);

}  // namespace kopt::exec
