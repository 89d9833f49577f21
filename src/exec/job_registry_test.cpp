#include "exec/job_registry.h"

#include <doctest/doctest.h>

#include <atomic>

#include "exec/process_group.h"
#include "exec/test_support.h"

using namespace kopt::exec;
using namespace kopt::exec::testing;
using namespace std::chrono_literals;

namespace {
CommandSpec shell(const TempDir& dir, const std::string& script, const std::string& out = "out.txt") {
  CommandSpec spec;
  spec.argv = {"sh", "-c", script};
  spec.stdoutPath = dir / out;
  spec.timeout = 60s;
  return spec;
}
}  // namespace

TEST_CASE("start returns at once; poll reports running, then the result") {
  TempDir dir("jobs");
  JobRegistry jobs;
  // The command blocks until the test creates the `go` file, so "running" is observed for sure.
  const std::string go = (dir / "go").string();
  const std::string id = jobs.start(shell(dir, "while [ ! -e " + go + " ]; do sleep 0.01; done; echo done"));
  auto status = jobs.poll(id);
  REQUIRE(status);
  CHECK(status->id == id);
  CHECK(str(status->state) == str(JobState::Running));
  CHECK_FALSE(status->result);

  writeFile(go, "");
  status = jobs.waitFor(id, 30s);
  REQUIRE(status);
  CHECK(str(status->state) == str(JobState::Finished));
  REQUIRE(status->result);
  CHECK(status->result->ok());
  CHECK(readFile(dir / "out.txt") == "done\n");
  CHECK(std::string(toString(JobState::Finished)) == "finished");
}

TEST_CASE("unknown ids are reported, not invented") {
  JobRegistry jobs;
  CHECK_FALSE(jobs.poll("job-999"));
  CHECK_FALSE(jobs.cancel("job-999"));
  CHECK_FALSE(jobs.waitFor("job-999", 1ms));
}

TEST_CASE("cancel stops a running job") {
  TempDir dir("jobcancel");
  JobRegistry jobs;
  const std::string id = jobs.start(shell(dir, "exec sleep 30"));
  CHECK(jobs.cancel(id));
  auto status = jobs.waitFor(id, 30s);
  REQUIRE(status);
  REQUIRE(status->result);
  CHECK(str(status->result->outcome) == str(RunOutcome::Cancelled));
  CHECK(status->cancelRequested);
}

TEST_CASE("progress from the command shows up in poll") {
  TempDir dir("jobprogress");
  JobRegistry jobs;
  const std::string id = jobs.start(shell(dir, "echo row-1; echo row-2; exec sleep 30"));
  CHECK(eventually([&] { return jobs.poll(id)->progress.lastLine == "row-2"; }));
  CHECK(jobs.poll(id)->progress.outputBytes == 12);
  jobs.cancel(id);
}

TEST_CASE("the finish hook has run before poll reports the job finished") {
  TempDir dir("jobhook");
  JobRegistry jobs;
  std::atomic<bool> hookRan{false};
  const std::string id = jobs.start(shell(dir, "exit 4"), [&](const RunResult& r) {
    CHECK(r.exitCode == 4);
    hookRan = true;
  });
  CHECK(eventually([&] { return str(jobs.poll(id)->state) == str(JobState::Finished); }));
  CHECK(hookRan);
  CHECK(jobs.poll(id)->result->exitCode == 4);
}

TEST_CASE("old finished jobs are forgotten beyond keepFinished; ids stay unique") {
  TempDir dir("jobprune");
  JobRegistry jobs(nullptr, 2);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(jobs.start(shell(dir, "true", "out" + std::to_string(i))));
    REQUIRE(str(jobs.waitFor(ids.back(), 30s)->state) == str(JobState::Finished));
  }
  CHECK(ids[0] != ids[1]);
  CHECK(ids[1] != ids[2]);
  CHECK_FALSE(jobs.poll(ids[0]));
  CHECK(jobs.poll(ids[1]));
  CHECK(jobs.poll(ids[2]));
}

TEST_CASE("destroying the registry stops its running jobs") {
  TempDir dir("jobdtor");
  pid_t pid = 0;
  {
    JobRegistry jobs;
    const std::string id = jobs.start(shell(dir, "echo $$ > " + (dir / "pid").string() + "; echo ready; exec sleep 1000"));
    REQUIRE(eventually([&] { return jobs.poll(id)->progress.lastLine == "ready"; }));
    pid = pidFromFile(dir / "pid");
  }
  REQUIRE(pid > 0);
  CHECK_FALSE(processAlive(pid));
}

TEST_CASE("concurrent jobs do not disturb each other") {
  TempDir dir("jobmany");
  JobRegistry jobs;
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    ids.push_back(jobs.start(shell(dir, "echo " + std::to_string(i), "out" + std::to_string(i))));
  }
  for (int i = 0; i < 6; ++i) {
    auto s = jobs.waitFor(ids[i], 30s);
    REQUIRE(s->result);
    CHECK(s->result->ok());
    CHECK(readFile(dir / ("out" + std::to_string(i))) == std::to_string(i) + "\n");
  }
}
