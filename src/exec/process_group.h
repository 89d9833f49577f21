#pragma once
// The processes a command started, seen through /proc. kopt puts each command in its own session
// (setsid), so "the command" is every process whose session or process group is the child's pid.
// Counting the session too catches a child that moved itself into a new process group (bash job
// control does that) but did not start a new session.
#include <sys/types.h>

#include <cstdint>
#include <set>
#include <vector>

namespace kopt::exec {

struct GroupSnapshot {
  std::vector<pid_t> members;  // live (non-zombie) processes of the group or session
  // utime + stime + cutime + cstime of the members, in clock ticks. Includes the CPU time of
  // children they already reaped, so a short-lived compiler process still counts as activity.
  std::uint64_t cpuTicks = 0;
};

GroupSnapshot snapshotGroup(pid_t leader);

// Sends `sig` to the process group and to every other live member of the session.
void signalGroup(pid_t leader, int sig);

// True when no live (non-zombie) process belongs to the group or session.
bool groupEmpty(pid_t leader);

// True when the group or session has live members and every thread of every member is stopped
// (SIGSTOP taken: state T): nothing of it can run on a CPU or queue GPU work.
bool groupStopped(pid_t leader);

// One scan of /proc for what groupStopped needs, and what a caller that signals the group often
// needs besides: the session's members outside the process group (a child that called setpgid),
// which killpg does not reach, and those of them not stopped.
struct GroupStopState {
  bool any = false;         // the group or session has a live member
  bool allStopped = false;  // ... and every thread of every member is stopped
  std::vector<pid_t> outsideGroup;         // live members whose process group is not the leader's
  std::vector<pid_t> runningOutsideGroup;  // those of them with a thread not stopped
};
// `wholeStopped`: a member whose parent (kopt) was told by waitpid(WUNTRACED) that its group stop
// completed, i.e. every thread took the stop: while its main thread still shows T, its threads are
// not read one by one (a torch worker has about 50; each /proc read costs about 10 us).
GroupStopState inspectGroupStop(pid_t leader, pid_t wholeStopped = 0);

// Pins every thread of every live member to `cpus` (sched_setaffinity per thread: a process's
// threads each carry their own mask). Call it on a stopped group, which starts no new thread
// meanwhile; threads and processes started later inherit the mask. Returns the number of threads
// that could not be pinned (0: all of them).
int pinGroup(pid_t leader, const std::set<int>& cpus);

// True when the process exists and is not a zombie (a zombie waiting for its parent to reap it is
// gone for every purpose kopt cares about).
bool processAlive(pid_t pid);

}  // namespace kopt::exec
