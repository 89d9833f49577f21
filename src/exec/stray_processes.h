#pragma once
// Processes that escaped the command that started them (docs/integrity.md, referee hole 7). kopt ends a command by
// signalling its session and process group (process_group.h), so a kernel that forks a daemon into
// a session of its own (setsid, double fork) would outlive its arm and could slow the other arm's
// measurement (SIGSTOP it, burn its CPU, queue GPU work).
//
// kopt makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every process orphaned
// below it is re-parented to kopt instead of init and stays in kopt's process tree. A process of
// that tree is kopt's own when its session is kopt's session (git, started without setsid) or the
// session of a process kopt started and still runs (OwnChildren: every command and bench worker
// starts its own session). Every other process of the tree is a stray: kopt ends it, and a command
// or measurement that had one is refused.
//
// Not covered: a process that a command hands to another supervisor (systemd-run, a container
// runtime, a job scheduler: a Slurm job's node is outside this tree), or that a command started
// before kopt became a subreaper.
#include <sys/types.h>

#include <mutex>
#include <string>
#include <vector>

namespace kopt::exec {

// Orphans below this process are re-parented to it from now on. Returns false where the kernel
// does not offer it (then strays that double-fork go to init and are not found).
bool becomeSubreaper();

// The session leaders kopt started and has not reaped yet. Register a child before anything can
// scan for strays: hold spawnLock() across fork and add().
class OwnChildren {
 public:
  static std::unique_lock<std::mutex> spawnLock();
  static void add(pid_t leader);     // call with spawnLock() held
  static void remove(pid_t leader);  // after the leader is reaped
};

struct StrayProcess {
  pid_t pid = 0;
  pid_t session = 0;
  std::string name;  // comm, as /proc shows it
  std::string text() const;  // "pid 123 'sleep' (session 120)"
};

// The live processes of this process's tree that are neither in its session nor in the session of
// a registered own child. Zombies are not listed.
std::vector<StrayProcess> findStrayProcesses();

// SIGKILLs every stray (again, for the ones their death re-parents), reaps the ones re-parented to
// this process, and returns the ones it found alive. Empty when there were none.
std::vector<StrayProcess> endStrayProcesses();

// "2 processes escaped their command's session: pid 123 'sleep' (session 120), ...; kopt ended them"
std::string strayText(const std::vector<StrayProcess>& strays);

}  // namespace kopt::exec
