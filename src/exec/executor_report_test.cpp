#include "exec/executor_report.h"

#include <doctest/doctest.h>

using namespace kopt::exec;

TEST_CASE("the local executor is always usable and says so") {
  auto r = inspectExecutor(ExecutorConfig{});
  CHECK(r.kind == "local");
  CHECK(r.usable);
  CHECK(r.problem.empty());
  CHECK_FALSE(r.details.empty());
}

TEST_CASE("an invalid Slurm config is reported with its field") {
  ExecutorConfig c;
  c.kind = ExecutorKind::Slurm;
  c.time = "soon";
  auto r = inspectExecutor(c);
  CHECK_FALSE(r.usable);
  CHECK(r.problem.find("executor.time") != std::string::npos);
}

TEST_CASE("a Slurm partition that does not exist (or no Slurm at all) is not usable") {
  ExecutorConfig c;
  c.kind = ExecutorKind::Slurm;
  c.partition = "kopt-no-such-partition";
  auto r = inspectExecutor(c);
  CHECK(r.kind == "slurm");
  CHECK_FALSE(r.usable);
  CHECK_FALSE(r.problem.empty());
}
