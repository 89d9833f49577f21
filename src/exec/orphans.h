#pragma once
// Processes a kopt server left behind when it was killed (kill -9, a crash, an OOM kill). Every
// command kopt runs inherits KOPT_SERVER=<pid>:<start time> from the server (markServer()), and a
// process keeps its environment for life, in whatever session or process group it moves to. A new
// server ends every process whose KOPT_SERVER names a server that is no longer running, before
// it runs anything: a build or bench of the dead server would otherwise run beside the retried
// one, and time and results of both would be wrong (docs/robustness.md, item 7).
//
// Residual: a process that clears its own environment (execve with a new one) is not found; the
// referee's process checks (docs/integrity.md, referee hole 7) are the defence there.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace kopt::exec {

inline constexpr const char* kServerVariable = "KOPT_SERVER";

// "<pid>:<start time in clock ticks since boot>" of a process; nullopt when it does not exist.
std::optional<std::string> processIdentity(pid_t pid);

// Puts this process's identity in its environment as KOPT_SERVER, for every child to inherit.
void markServer();

struct OrphanReport {
  std::vector<pid_t> ended;       // SIGKILLed and gone
  std::vector<pid_t> stillAlive;  // did not go within the wait (unkillable, or another user's)
  std::vector<std::string> deadServers;  // the KOPT_SERVER values they carried
};

// Ends (SIGKILL) every process of this user whose KOPT_SERVER names a process that no longer runs
// (or runs with another start time: the pid was reused), then waits a little for them to go.
OrphanReport endOrphansOfDeadServers();

// What every kopt process that runs commands (`kopt serve`, `kopt call`) does before anything
// else: end the processes of dead servers, then mark itself (markServer) for the next one to find.
// Returns a line for stderr ("kopt serve: ended 2 process(es) ...") when it found any, else "".
std::string takeOverFromDeadServers(const std::string& who);

}  // namespace kopt::exec
