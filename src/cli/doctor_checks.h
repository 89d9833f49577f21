#pragma once
// What `kopt doctor` checks, as data: each check has a status and, when not ok, the fix. The
// probing (running `git --version`, importing torch, asking the GPU runtime) goes through a
// Probes object so the decisions can be tested without the tools installed.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/device_runtime.h"
#include "exec/executor_report.h"

namespace kopt::cli::doctor {

enum class Status { Ok, Warn, Fail, Info };
const char* toString(Status status);  // "ok" | "warn" | "fail" | "info"

struct Check {
  std::string id;      // stable key for --json ("git", "git_identity", "torch", ...)
  std::string title;   // "git"
  Status status = Status::Info;
  std::string detail;  // what was found
  std::string fix;     // what to do, when status is Warn or Fail
  bool neededForDemo = false;  // a Fail here means `kopt demo` cannot run
};

struct CommandOutput {
  bool started = false;  // false: not found on PATH (or could not start)
  int exitCode = -1;
  std::string output;    // stdout + stderr, trimmed
};

struct GpuSummary {
  bool present = false;
  std::string backend;             // which runtime answered
  std::vector<std::string> lines;  // "0: NVIDIA H200 (sm_90, 139.8 GiB) = H200 SXM, by name and memory"
  std::string reason;              // why there is none
};

struct Probes {
  std::function<CommandOutput(const std::vector<std::string>& argv)> run;
  std::function<GpuSummary()> gpu;
  // Empty optional: the directory is writable; otherwise why not.
  std::function<std::optional<std::string>(const std::filesystem::path& dir)> checkWritable;
  std::function<std::optional<std::filesystem::path>(const std::string& program)> which;
  std::function<std::filesystem::path()> skillsDir;
  std::function<std::filesystem::path()> demoSourceDir;  // empty: not checked
  // What the executor can reach (exec::inspectExecutor: for Slurm, the partition, its nodes and
  // GPUs). Unset: the executor is not inspected.
  std::function<exec::ExecutorReport(const exec::ExecutorConfig&)> executor;
};

Probes systemProbes();

// One line per device of `runtime`: the runtime's name, arch and memory, and the product kopt takes
// it for (the datasheet row its peaks come from) and from what (name, memory size, or the arch alone).
GpuSummary summarizeGpu(device::DeviceRuntime& runtime);

// `executor`: the manifest's executor block to inspect (kopt doctor --manifest); by default
// Slurm's default partition when sinfo is installed, else the local executor.
std::vector<Check> runChecks(const Probes& probes, const std::filesystem::path& workspace,
                             const std::optional<exec::ExecutorConfig>& executor = std::nullopt);

// True when every check the CPU demo needs is not Fail.
bool demoCanRun(const std::vector<Check>& checks);

std::string renderText(const std::vector<Check>& checks);
nlohmann::json renderJson(const std::vector<Check>& checks, const std::filesystem::path& workspace);

}  // namespace kopt::cli::doctor
