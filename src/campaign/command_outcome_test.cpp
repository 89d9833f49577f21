#include "campaign/command_outcome.h"

#include <doctest/doctest.h>

using namespace kopt;
using namespace kopt::campaign;

namespace {

exec::RunResult runThat(exec::RunOutcome outcome, std::string error = {}) {
  exec::RunResult r;
  r.outcome = outcome;
  r.error = std::move(error);
  return r;
}

}  // namespace

TEST_CASE("command outcome: a run that ran judged the kernel, whatever its exit") {
  for (auto outcome : {exec::RunOutcome::Exited, exec::RunOutcome::Signaled, exec::RunOutcome::TimedOut,
                       exec::RunOutcome::Hung, exec::RunOutcome::FailedToStart}) {
    CHECK_FALSE(detail::unjudgedRunFailure(runThat(outcome), "run_tests"));
  }
}

TEST_CASE("command outcome: a cancelled run judged nothing; the tool fails and records nothing") {
  const auto failure = detail::unjudgedRunFailure(runThat(exec::RunOutcome::Cancelled), "rebuild_kernel");
  REQUIRE(failure);
  CHECK(failure->message == "rebuild_kernel was cancelled; nothing was recorded");
  CHECK(failure->fix == "call rebuild_kernel again");
}

TEST_CASE("command outcome: a run the cluster lost is not a failed build or test, whichever tool ran it") {
  for (const char* tool : {"run_tests", "validate_round", "run_baseline", "final_acceptance"}) {
    const auto failure =
        detail::unjudgedRunFailure(runThat(exec::RunOutcome::Lost, "node n1 stopped answering"), tool);
    REQUIRE(failure);
    CHECK(failure->message.find(std::string(tool) + " stopped: a run was lost by the cluster") == 0);
    CHECK(failure->message.find("node n1 stopped answering") != std::string::npos);
    CHECK(failure->fix.find("once the node is back") != std::string::npos);
  }
}
