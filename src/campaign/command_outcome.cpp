#include "campaign/command_outcome.h"

namespace kopt::campaign::detail {

ToolFailure lostRunFailure(const std::string& tool, const std::string& what) {
  return toolFailure(tool + " stopped: a run was lost by the cluster, not by the kernel (" + what +
                         "); nothing of it was measured or recorded",
                     "",
                     "call " + tool + " again once the node is back (kopt doctor shows the executor and its nodes)");
}

std::optional<ToolFailure> unjudgedRunFailure(const exec::RunResult& run, const std::string& tool) {
  switch (run.outcome) {
    case exec::RunOutcome::Cancelled:
      return toolFailure(tool + " was cancelled; nothing was recorded", "", "call " + tool + " again");
    case exec::RunOutcome::Lost:
      return lostRunFailure(tool, run.error);
    case exec::RunOutcome::Exited:
    case exec::RunOutcome::Signaled:
    case exec::RunOutcome::TimedOut:
    case exec::RunOutcome::Hung:
    case exec::RunOutcome::FailedToStart:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kopt::campaign::detail
