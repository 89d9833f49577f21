#include "cli/doctor_checks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "device/fake_runtime_test_support.h"

using namespace kopt::cli::doctor;

namespace {

// A machine described by what each command prints; anything not listed is "not installed".
struct FakeMachine {
  std::map<std::string, CommandOutput> commands;  // key: argv joined with ' '
  bool gpu = false;
  bool writable = true;
  Probes probes() {
    Probes p;
    p.run = [this](const std::vector<std::string>& argv) {
      std::string key;
      for (const auto& a : argv) key += (key.empty() ? "" : " ") + a;
      auto it = commands.find(key);
      return it == commands.end() ? CommandOutput{} : it->second;
    };
    p.which = [this](const std::string& program) -> std::optional<std::filesystem::path> {
      for (const auto& [key, out] : commands)
        if (key.rfind(program + " ", 0) == 0 || key.rfind("/usr/bin/" + program + " ", 0) == 0)
          return std::filesystem::path("/usr/bin") / program;
      if (program == "bash") return std::filesystem::path("/bin/bash");
      return std::nullopt;
    };
    p.gpu = [this] {
      GpuSummary s;
      s.present = gpu;
      s.backend = "cuda-driver";
      if (gpu) s.lines = {"0: NVIDIA H200 (sm_90), 139 GiB"};
      else s.reason = "no GPU found: libcuda.so.1 not found";
      return s;
    };
    p.checkWritable = [this](const std::filesystem::path&) -> std::optional<std::string> {
      if (writable) return std::nullopt;
      return std::string("permission denied");
    };
    p.skillsDir = [] { return std::filesystem::path("/src/skills"); };
    return p;
  }
};

const Check& find(const std::vector<Check>& checks, const std::string& id) {
  for (const auto& c : checks)
    if (c.id == id) return c;
  FAIL("no check " << id);
  throw 0;
}

CommandOutput ok(std::string text) { return CommandOutput{true, 0, std::move(text)}; }

}  // namespace

TEST_CASE("a bare CPU machine with a compiler, git and a writable workspace can run the demo") {
  FakeMachine m;
  m.commands["c++ --version"] = ok("c++ (Debian 12.2.0-14) 12.2.0\nCopyright");
  m.commands["git --version"] = ok("git version 2.39.5");
  m.commands["git config user.name"] = ok("Ada");
  m.commands["git config user.email"] = ok("ada@example.com");
  auto checks = runChecks(m.probes(), "/work");
  CHECK(demoCanRun(checks));
  CHECK((find(checks, "cxx").status == Status::Ok));
  CHECK(find(checks, "cxx").detail == "c++: c++ (Debian 12.2.0-14) 12.2.0");
  CHECK((find(checks, "git_identity").status == Status::Ok));
  CHECK((find(checks, "gpu").status == Status::Info));
  CHECK(find(checks, "gpu").detail.find("the CPU demo runs without one") != std::string::npos);
  // python3 missing: torch and triton are not probed at all.
  CHECK(std::none_of(checks.begin(), checks.end(), [](const Check& c) { return c.id == "torch" || c.id == "triton"; }));
  CHECK((find(checks, "python3").status == Status::Warn));
  CHECK_FALSE(find(checks, "python3").fix.empty());
  std::string text = renderText(checks);
  CHECK(text.find("Ready for the CPU demo") != std::string::npos);
  CHECK(text.find("[warn] python3: python3 not found\n         fix: ") != std::string::npos);
}

TEST_CASE("missing git, compiler or workspace permission blocks the demo, each with a fix") {
  FakeMachine m;
  m.writable = false;
  auto checks = runChecks(m.probes(), "/readonly");
  CHECK_FALSE(demoCanRun(checks));
  for (const char* id : {"cxx", "git", "workspace"}) {
    CAPTURE(id);
    CHECK((find(checks, id).status == Status::Fail));
    CHECK_FALSE(find(checks, id).fix.empty());
  }
  auto json = renderJson(checks, "/readonly");
  CHECK(json["demo_ready"] == false);
  CHECK(json["all_ok"] == false);
  CHECK(json["checks"][0]["id"] == "cxx");
  CHECK(json["checks"][0].contains("fix"));
  CHECK(renderText(checks).find("cannot run until the [fail] items") != std::string::npos);
}

TEST_CASE("a GPU box: torch with a GPU, triton, nvcc, git identity missing") {
  FakeMachine m;
  m.gpu = true;
  m.commands["g++ --version"] = ok("g++ 12");
  m.commands["git --version"] = ok("git version 2.39.5");
  m.commands["python3 --version"] = ok("Python 3.11.2");
  m.commands["python3 -c import torch; print(torch.__version__, 'cuda=' + str(torch.version.cuda), 'hip=' + "
             "str(getattr(torch.version, 'hip', None)), 'gpu=' + str(torch.cuda.is_available()))"] =
      ok("2.5.1 cuda=12.4 hip=None gpu=True");
  m.commands["python3 -c import triton; print(triton.__version__)"] = ok("3.1.0");
  m.commands["/usr/bin/nvcc --version"] = ok("nvcc: NVIDIA\nCuda compilation tools, release 13.0, V13.0.48\n");
  m.commands["nvcc --version"] = m.commands["/usr/bin/nvcc --version"];
  m.commands["node --version"] = ok("v20.19.2");
  m.commands["sinfo --version"] = ok("slurm 23.02.6");
  auto checks = runChecks(m.probes(), "/work");
  CHECK(demoCanRun(checks));
  CHECK((find(checks, "torch").status == Status::Ok));
  CHECK((find(checks, "triton").status == Status::Ok));
  CHECK(find(checks, "gpu_compiler").detail.find("release 13.0") != std::string::npos);
  CHECK(find(checks, "gpu").detail == "cuda-driver: 0: NVIDIA H200 (sm_90), 139 GiB");
  CHECK((find(checks, "git_identity").status == Status::Warn));
  CHECK(find(checks, "git_identity").fix.find("git config --global user.name") != std::string::npos);
  CHECK(find(checks, "node").detail.find("needs Node >= 22") != std::string::npos);
  CHECK((find(checks, "slurm").status == Status::Ok));
}

TEST_CASE("the executor: Slurm's partition and GPUs when sinfo is there, the manifest's block when given") {
  FakeMachine m;
  m.commands["g++ --version"] = ok("g++ 12");
  m.commands["git --version"] = ok("git version 2.39.5");
  m.commands["sinfo --version"] = ok("slurm 22.05.8");
  std::vector<kopt::exec::ExecutorConfig> asked;
  auto probes = m.probes();
  probes.executor = [&](const kopt::exec::ExecutorConfig& config) {
    asked.push_back(config);
    kopt::exec::ExecutorReport r;
    r.kind = kopt::exec::toString(config.kind);
    r.usable = config.partition != "gone";
    if (!r.usable) r.problem = "partition 'gone' does not exist";
    r.details = {"partition debug (default)", "1 node, 2 CPUs, gres gpu:2"};
    return r;
  };
  auto checks = runChecks(probes, "/work");
  REQUIRE(asked.size() == 1);
  CHECK((asked[0].kind == kopt::exec::ExecutorKind::Slurm));  // sinfo found: Slurm's default partition
  CHECK((find(checks, "executor").status == Status::Ok));
  CHECK(find(checks, "executor").detail == "slurm; partition debug (default); 1 node, 2 CPUs, gres gpu:2");

  kopt::exec::ExecutorConfig fromManifest;
  fromManifest.kind = kopt::exec::ExecutorKind::Slurm;
  fromManifest.partition = "gone";
  fromManifest.devices = {"0", "1"};
  checks = runChecks(probes, "/work", fromManifest);
  CHECK(asked.back().partition == "gone");
  const Check& e = find(checks, "executor");
  CHECK((e.status == Status::Warn));
  CHECK(e.detail.find("sharded over devices 0, 1") != std::string::npos);
  CHECK(e.detail.find("partition 'gone' does not exist") != std::string::npos);
  CHECK(e.fix.find("executor block") != std::string::npos);
  CHECK(demoCanRun(checks));  // the CPU demo runs locally whatever the cluster says
}

TEST_CASE("doctor names an sm_90 with 141 GB an H200, by name or else by memory") {
  auto fake = kopt::device::testing::FakeRuntime::withH200();
  GpuSummary named = summarizeGpu(fake);
  CHECK(named.present);
  CHECK(named.backend == "fake");
  REQUIRE(named.lines.size() == 1);
  CHECK(named.lines[0] == "0: NVIDIA H200 (sm_90, 139.8 GiB) = H200 SXM, by name");

  fake.snap.devices[0].name = "NVIDIA Graphics Device";
  GpuSummary unnamed = summarizeGpu(fake);
  REQUIRE(unnamed.lines.size() == 1);
  CHECK(unnamed.lines[0] == "0: NVIDIA Graphics Device (sm_90, 139.8 GiB) = H200 SXM, by sm_90 and memory size (name not in the table)");

  fake.snap.devices[0].memoryBytes = 0;
  CHECK(summarizeGpu(fake).lines[0] == "0: NVIDIA Graphics Device (sm_90) = H100 SXM, a guess from sm_90 alone");

  auto none = kopt::device::testing::FakeRuntime::withoutGpu("no GPU found: test");
  GpuSummary absent = summarizeGpu(none);
  CHECK_FALSE(absent.present);
  CHECK(absent.reason == "no GPU found: test");
  CHECK(absent.lines.empty());
}
