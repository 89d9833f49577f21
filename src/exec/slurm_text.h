#pragma once
// The text side of talking to Slurm: what squeue / scontrol / sinfo print, parsed into types, and
// the strings kopt hands to sbatch (a --wrap script, output paths, --time). Pure functions, so
// every odd case is unit-tested without a cluster.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kopt::exec::slurm {

enum class JobState {
  Pending, Running, Suspended, Completing, Configuring,  // not over yet
  Completed, Failed, Cancelled, Timeout, NodeFail, BootFail, Preempted, OutOfMemory, Deadline,
  Unknown,  // a state this version of kopt does not know; treated as "not over yet"
};
JobState parseJobState(const std::string& text);  // "RUNNING", "CANCELLED+", "NODE_FAIL", ...
bool isFinal(JobState state);
const char* toString(JobState state);

// One line of `squeue -h -t all -o "%i|%T|%r|%N"`.
struct QueueEntry {
  std::string jobId;
  JobState state = JobState::Unknown;
  std::string reason;  // "None", "Resources", "PartitionConfig", ...
  std::string nodes;   // "localhost", "gpu[01-02]", "" while pending
};
extern const char* const kQueueFormat;  // the -o argument that parseQueue expects
std::vector<QueueEntry> parseQueue(const std::string& squeueOutput);

// `scontrol show job -o ID`: the fields kopt needs.
struct JobInfo {
  std::string jobId;
  JobState state = JobState::Unknown;
  std::string reason;
  std::string nodes;
  int exitCode = 0;  // ExitCode=<code>:<signal>
  int signal = 0;
};
std::optional<JobInfo> parseJobInfo(const std::string& scontrolOneLine);

// A pending reason that means "this request can never run here" (more CPUs/GPUs than the
// partition has, a bad account, ...), as opposed to waiting for resources. Clusters without
// EnforcePartLimits keep such jobs pending forever instead of refusing them at submit.
bool isImpossibleReason(const std::string& reason);

// A pending reason that means "the nodes this job needs are DOWN or DRAINED": squeue's %r shows
// "ReqNodeNotAvail, ..." or, in newer Slurm, "Nodes required for job are DOWN, DRAINED or
// reserved ..." (scontrol: Nodes_required_for_job_are_DOWN,...). Such a job waits until an
// administrator brings a node back, which may be never.
bool isNodesDownReason(const std::string& reason);

// `sinfo -h -n NODE -o %t` for one node: "idle", "alloc*", "down*", "mix", "drain" ...
struct NodeHealth {
  bool notResponding = false;  // the trailing '*': slurmctld's pings go unanswered
  bool down = false;           // DOWN or FAIL: the node's jobs are lost
};
NodeHealth parseNodeState(const std::string& sinfoState);

// `sbatch --parsable` prints "<id>" or "<id>;<cluster>".
std::optional<std::string> parseSubmittedJobId(const std::string& sbatchOutput);

// POSIX shell quoting: the word comes back as itself from `sh`.
std::string shellQuote(const std::string& word);
// sbatch treats '%' in --output/--error as a pattern (%j = job id): escape it.
std::string escapeOutputPath(const std::string& path);
// A --time backstop for a command kopt itself times out at `timeout`: Slurm limits are whole
// minutes and enforced on a 30 s timer, so round up and add a minute; kopt's own timer fires first.
std::string timeLimitFor(std::chrono::milliseconds timeout);

}  // namespace kopt::exec::slurm
