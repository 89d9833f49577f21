#include "exec/executor_report.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <sstream>

#include "exec/output_tail.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace kopt::exec {
namespace {

struct Captured {
  RunResult result;
  std::string out;
  std::string err;
};

Captured capture(std::vector<std::string> argv) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = fs::temp_directory_path();  // two files, removed below; no directory left
  std::error_code ec;
  const std::string stem = "kopt-inspect-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.stdoutPath = dir / (stem + ".out");
  spec.stderrPath = dir / (stem + ".err");
  spec.timeout = 15s;
  spec.killGrace = 1s;
  Captured c;
  c.result = makeLocalExecutor()->run(spec, {});
  c.out = tailText(spec.stdoutPath, 1 << 16);
  c.err = tailText(spec.stderrPath, 1 << 12);
  fs::remove(spec.stdoutPath, ec);
  fs::remove(spec.stderrPath, ec);
  return c;
}

std::string firstLine(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  return l;
}

std::string envOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

}  // namespace

ExecutorReport inspectExecutor(const ExecutorConfig& config) {
  ExecutorReport r;
  r.kind = toString(config.kind);
  if (auto problem = validate(config)) {
    r.problem = *problem;
    return r;
  }
  if (config.kind == ExecutorKind::Local) {
    r.usable = true;
    r.details.push_back("commands run on this machine, one process group each");
    r.details.push_back("CUDA_VISIBLE_DEVICES=" + envOr("CUDA_VISIBLE_DEVICES", "(unset)") +
                        " HIP_VISIBLE_DEVICES=" + envOr("HIP_VISIBLE_DEVICES", "(unset)"));
    return r;
  }
  r.details.push_back(std::string("mode: ") + toString(config.mode) +
                      (config.gres.empty() ? "" : ", gres: " + config.gres) +
                      (config.time.empty() ? "" : ", time: " + config.time) +
                      (config.account.empty() ? "" : ", account: " + config.account));
  r.details.push_back("SLURM_CONF=" + envOr("SLURM_CONF", "(unset: /etc/slurm/slurm.conf or DNS)"));
  std::vector<std::string> argv = {"sinfo", "-h", "-o", "%P|%a|%D|%c|%G|%t"};
  if (!config.partition.empty()) argv.insert(argv.begin() + 1, {"-p", config.partition});
  auto c = capture(argv);
  if (c.result.outcome == RunOutcome::FailedToStart) {
    r.problem = "sinfo cannot run (" + c.result.error + "): install the Slurm client tools or put them on PATH";
    return r;
  }
  if (!c.result.ok()) {
    r.problem = "sinfo failed: " + firstLine(c.err.empty() ? c.result.error : c.err);
    return r;
  }
  std::istringstream in(c.out);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++rows;
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, '|');) f.push_back(x);
    if (f.size() < 6) continue;
    r.details.push_back("partition " + f[0] + " (" + f[1] + "): " + f[2] + " node(s) " + f[5] + ", " + f[3] +
                        " CPUs each, GPUs/gres: " + (f[4] == "(null)" ? "none" : f[4]));
  }
  if (rows == 0) {
    r.problem = config.partition.empty() ? "sinfo lists no partition" : "partition '" + config.partition + "' not found by sinfo";
    return r;
  }
  r.usable = true;
  return r;
}

}  // namespace kopt::exec
