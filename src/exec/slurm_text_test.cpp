#include "exec/slurm_text.h"

#include <doctest/doctest.h>

#include "exec/test_support.h"

using namespace kopt::exec::slurm;
using kopt::exec::testing::str;

TEST_CASE("job states parse, including the '+' suffix and unknown words") {
  CHECK(str(parseJobState("RUNNING")) == "RUNNING");
  CHECK(str(parseJobState("CANCELLED+")) == "CANCELLED");
  CHECK(str(parseJobState("NODE_FAIL")) == "NODE_FAIL");
  CHECK(str(parseJobState("REQUEUED")) == "PENDING");
  CHECK(str(parseJobState("SOMETHING_NEW")) == "UNKNOWN");
  CHECK(isFinal(JobState::Completed));
  CHECK(isFinal(JobState::NodeFail));
  CHECK_FALSE(isFinal(JobState::Completing));
  CHECK_FALSE(isFinal(JobState::Unknown));
}

TEST_CASE("squeue lines parse; malformed lines are skipped") {
  auto q = parseQueue("12|RUNNING|None|localhost\n\n13|PENDING|PartitionConfig|\ngarbage\n");
  REQUIRE(q.size() == 2);
  CHECK(q[0].jobId == "12");
  CHECK(str(q[0].state) == "RUNNING");
  CHECK(q[0].nodes == "localhost");
  CHECK(q[1].reason == "PartitionConfig");
  CHECK(q[1].nodes.empty());
  CHECK(parseQueue("").empty());
}

TEST_CASE("scontrol show job -o gives state, reason, nodes and exit code:signal") {
  const std::string line =
      "JobId=8 JobName=kopt-b1 UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 "
      "Account=(null) QOS=(null) JobState=FAILED Reason=JobLaunchFailure Dependency=(null) Requeue=0 "
      "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:11 RunTime=00:00:00 TimeLimit=UNLIMITED "
      "NodeList=localhost BatchHost=localhost NumNodes=1 NumCPUs=1 ReqNodeList=(null) Command=(null)\n";
  auto info = parseJobInfo(line);
  REQUIRE(info);
  CHECK(info->jobId == "8");
  CHECK(str(info->state) == "FAILED");
  CHECK(info->reason == "JobLaunchFailure");
  CHECK(info->nodes == "localhost");
  CHECK(info->exitCode == 0);
  CHECK(info->signal == 11);
  // ReqNodeList= must not be mistaken for NodeList=.
  auto pending = parseJobInfo("JobId=9 JobState=PENDING Reason=Resources ReqNodeList=gpu01 NodeList=(null) ExitCode=3:0");
  REQUIRE(pending);
  CHECK(pending->nodes.empty());
  CHECK(pending->exitCode == 3);
  CHECK_FALSE(parseJobInfo("slurm_load_jobs error: Invalid job id specified"));
}

TEST_CASE("impossible pending reasons are told apart from waiting") {
  CHECK(isImpossibleReason("PartitionConfig"));
  CHECK(isImpossibleReason("BadConstraints"));
  CHECK_FALSE(isImpossibleReason("Resources"));
  // Waiting on dead nodes is a different thing: it may end when a node comes back.
  CHECK_FALSE(isImpossibleReason("Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions"));
  CHECK(isNodesDownReason("Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions"));
  CHECK(isNodesDownReason("ReqNodeNotAvail, UnavailableNodes:n1"));
  CHECK(isNodesDownReason("Nodes_required_for_job_are_DOWN,_DRAINED_or_reserved_for_jobs_in_higher_priority_partitions"));
  CHECK_FALSE(isNodesDownReason("Resources"));
  CHECK_FALSE(isNodesDownReason("Priority"));
  CHECK_FALSE(isImpossibleReason("Priority"));
  CHECK_FALSE(isImpossibleReason("None"));
}

TEST_CASE("node states: '*' is not responding, down and fail are lost") {
  CHECK_FALSE(parseNodeState("idle").down);
  CHECK_FALSE(parseNodeState("alloc").notResponding);
  CHECK(parseNodeState("alloc*").notResponding);
  CHECK_FALSE(parseNodeState("alloc*").down);
  CHECK(parseNodeState("down*").down);
  CHECK(parseNodeState("down*").notResponding);
  CHECK(parseNodeState("fail").down);
  CHECK_FALSE(parseNodeState("drng").down);
  CHECK_FALSE(parseNodeState("mix\n").down);
}

TEST_CASE("sbatch --parsable output gives the job id") {
  CHECK(parseSubmittedJobId("42\n") == std::optional<std::string>("42"));
  CHECK(parseSubmittedJobId("42;cluster\n") == std::optional<std::string>("42"));
  CHECK_FALSE(parseSubmittedJobId("sbatch: error: Batch job submission failed"));
  CHECK_FALSE(parseSubmittedJobId(""));
}

TEST_CASE("shell quoting round-trips through sh") {
  CHECK(shellQuote("plain-word_1.py") == "plain-word_1.py");
  CHECK(shellQuote("") == "''");
  CHECK(shellQuote("a b") == "'a b'");
  CHECK(shellQuote("it's") == "'it'\\''s'");
  CHECK(shellQuote("$HOME;*") == "'$HOME;*'");
}

TEST_CASE("output paths escape '%', time limits round up to whole minutes plus one") {
  CHECK(escapeOutputPath("/a/b%j/out") == "/a/b%%j/out");
  CHECK(escapeOutputPath("/plain") == "/plain");
  using namespace std::chrono_literals;
  CHECK(timeLimitFor(100ms) == "2");
  CHECK(timeLimitFor(60s) == "2");
  CHECK(timeLimitFor(61s) == "3");
  CHECK(timeLimitFor(0ms) == "UNLIMITED");
}

TEST_CASE("shellQuote'd words come back unchanged from a real sh") {
  kopt::exec::testing::TempDir dir("quote");
  const std::vector<std::string> words = {"plain", "a b", "it's", "$HOME", "*", "\"q\"", "back\\slash", "", "x\ny"};
  std::string script = "printf '%s|'";
  std::string expected;
  for (const auto& w : words) {
    script += " " + shellQuote(w);
    expected += w + "|";
  }
  kopt::exec::CommandSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.stdoutPath = dir / "out";
  REQUIRE(kopt::exec::makeLocalExecutor()->run(spec, {}).ok());
  CHECK(kopt::exec::testing::readFile(dir / "out") == expected);
}
