#include "exec/executor_config.h"

#include <doctest/doctest.h>

#include "exec/test_support.h"

using namespace kopt::exec;
using namespace kopt::exec::testing;

TEST_CASE("kinds and modes parse from the manifest's words, with the choices in the error") {
  CHECK(str(std::get<ExecutorKind>(parseExecutorKind("local"))) == str(ExecutorKind::Local));
  CHECK(str(std::get<ExecutorKind>(parseExecutorKind("slurm"))) == str(ExecutorKind::Slurm));
  CHECK(std::get<std::string>(parseExecutorKind("k8s")).find("executor.kind: 'k8s'") != std::string::npos);
  CHECK(str(std::get<SlurmMode>(parseSlurmMode("srun"))) == str(SlurmMode::Srun));
  CHECK(str(std::get<SlurmMode>(parseSlurmMode("sbatch"))) == str(SlurmMode::Sbatch));
  CHECK(str(std::get<SlurmMode>(parseSlurmMode("auto"))) == str(SlurmMode::Auto));
  CHECK(std::get<std::string>(parseSlurmMode("batch")).find("srun, sbatch or auto") != std::string::npos);
  CHECK(std::string(toString(SlurmMode::Sbatch)) == "sbatch");
  CHECK(std::string(toString(ExecutorKind::Slurm)) == "slurm");
}

TEST_CASE("validate names the field to fix") {
  ExecutorConfig c;
  c.kind = ExecutorKind::Slurm;
  CHECK_FALSE(validate(c));
  for (const char* t : {"30", "5:00", "01:00:00", "2-0", "1-12:00", "1-00:00:00", "UNLIMITED"}) {
    c.time = t;
    CAPTURE(t);
    CHECK_FALSE(validate(c));
  }
  for (const char* t : {"30m", "1-", "-1", "1:", ":30", "1:2:3:4", "1-2:3:4:5", "1--2", "unLimited", ""}) {
    c.time = t;
    CAPTURE(t);
    if (c.time.empty()) continue;  // empty means "no --time", checked below
    REQUIRE(validate(c));
    CHECK(validate(c)->find("executor.time") != std::string::npos);
  }
  // A 200 KB value is refused, not a stack overflow (std::regex recursed per character).
  std::string longTime;
  for (int i = 0; i < 50000; ++i) longTime += "1:1:";
  c.time = longTime;
  CHECK(validate(c)->find("executor.time") != std::string::npos);
  c.time = "30m";
  CHECK(validate(c)->find("executor.time") != std::string::npos);
  c.time.clear();
  c.partition = "gpu x";
  CHECK(validate(c)->find("executor.partition") != std::string::npos);
  c.partition = "gpu";
  c.extraArgs = {"--qos=high", ""};
  CHECK(validate(c)->find("executor.extra_args") != std::string::npos);
  c.extraArgs = {"--qos=high\n--x"};
  CHECK(validate(c)->find("control character") != std::string::npos);
}

TEST_CASE("makeExecutor picks the backend; an invalid config fails every run with its error") {
  ExecutorConfig c;
  CHECK(makeExecutor(c)->name() == "local");
  c.kind = ExecutorKind::Slurm;
  CHECK(makeExecutor(c)->name() == "slurm");
  c.time = "soon";
  auto bad = makeExecutor(c);
  CHECK(bad->name() == "slurm");
  TempDir dir("config");
  CommandSpec spec;
  spec.argv = {"true"};
  spec.stdoutPath = dir / "out";
  auto r = bad->run(spec, {});
  CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
  CHECK(r.error.find("executor.time") != std::string::npos);
}

TEST_CASE("a Slurm executor without the Slurm tools fails to start with a clear error") {
  TempDir dir("noslurm");
  for (const char* mode : {"srun", "sbatch"}) {
    ExecutorConfig c;
    c.kind = ExecutorKind::Slurm;
    c.mode = std::get<SlurmMode>(parseSlurmMode(mode));
    CommandSpec spec;
    spec.argv = {"true"};
    spec.env = {{"PATH", (dir / "empty-bin").string()}};  // no srun / sbatch here
    spec.stdoutPath = dir / "out";
    auto r = makeExecutor(c)->run(spec, {});
    CAPTURE(mode);
    CHECK(str(r.outcome) == str(RunOutcome::FailedToStart));
    CHECK(r.error.find("not found on PATH") != std::string::npos);
    CHECK(r.error.find("Slurm installed") != std::string::npos);
  }
  ExecutorConfig c;
  c.kind = ExecutorKind::Slurm;
  CommandSpec spec;
  spec.argv = {"true"};
  spec.stdoutPath = dir / "out";
  spec.cwd = dir / "missing";
  CHECK(makeExecutor(c)->run(spec, {}).error.find("working directory") != std::string::npos);
}

TEST_CASE("devices to shard over: ids without spaces or commas, each once, for either backend") {
  for (ExecutorKind kind : {ExecutorKind::Local, ExecutorKind::Slurm}) {
    ExecutorConfig c;
    c.kind = kind;
    c.devices = {"0", "1"};
    CHECK_FALSE(validate(c));
    c.devices = {"0", "0"};
    REQUIRE(validate(c));
    CHECK(validate(c)->find("executor.devices: '0' is listed twice") != std::string::npos);
    c.devices = {"0,1"};
    CHECK(validate(c)->find("executor.devices: '0,1' is not a device id") != std::string::npos);
    c.devices = {""};
    CHECK(validate(c));
  }
}
