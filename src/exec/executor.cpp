#include "exec/executor.h"

#include <algorithm>

#include "exec/executor_config.h"
#include "exec/slurm_executor.h"
#include "util/text_scanner.h"

namespace kopt::exec {

const char* toString(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::Exited: return "exited";
    case RunOutcome::Signaled: return "signaled";
    case RunOutcome::TimedOut: return "timed_out";
    case RunOutcome::Hung: return "hung";
    case RunOutcome::Cancelled: return "cancelled";
    case RunOutcome::FailedToStart: return "failed_to_start";
    case RunOutcome::Lost: return "lost";
  }
  return "unknown";
}

const char* toString(ExecutorKind kind) { return kind == ExecutorKind::Slurm ? "slurm" : "local"; }

const char* toString(SlurmMode mode) {
  switch (mode) {
    case SlurmMode::Srun: return "srun";
    case SlurmMode::Sbatch: return "sbatch";
    case SlurmMode::Auto: return "auto";
  }
  return "auto";
}

std::variant<ExecutorKind, std::string> parseExecutorKind(const std::string& text) {
  if (text == "local") return ExecutorKind::Local;
  if (text == "slurm") return ExecutorKind::Slurm;
  return "executor.kind: '" + text + "' is not a backend; use local or slurm";
}

std::variant<SlurmMode, std::string> parseSlurmMode(const std::string& text) {
  if (text == "srun") return SlurmMode::Srun;
  if (text == "sbatch") return SlurmMode::Sbatch;
  if (text == "auto") return SlurmMode::Auto;
  return "executor.mode: '" + text + "' is not a mode; use srun, sbatch or auto";
}

namespace {

// The forms sbatch/srun accept for --time: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S (digits), or
// unlimited. Scanned, not std::regex_match'ed: that recursed per character and a long value
// overflowed the stack (fuzz_manifest).
bool isSlurmTime(const std::string& t) {
  if (t == "UNLIMITED" || t == "INFINITE" || t == "unlimited" || t == "infinite") return true;
  util::TextScanner s(t);
  if (s.digits().empty()) return false;
  const bool days = s.take('-');
  if (days && s.digits().empty()) return false;
  int groups = 1;  // digit fields after the day part (or from the start without one)
  while (s.take(':')) {
    if (s.digits().empty() || ++groups > 3) return false;
  }
  return s.atEnd();
}

bool hasControlChar(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> validate(const ExecutorConfig& config) {
  std::vector<std::string> seen;
  for (const auto& id : config.devices) {
    if (id.empty() || hasControlChar(id) || id.find_first_of(" ,") != std::string::npos) {
      return "executor.devices: '" + id + "' is not a device id; give ids such as 0 and 1 (no spaces or commas)";
    }
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) {
      return "executor.devices: '" + id + "' is listed twice; each device takes one shard";
    }
    seen.push_back(id);
  }
  if (config.kind == ExecutorKind::Local) return std::nullopt;
  if (!config.time.empty() && !isSlurmTime(config.time)) {
    return "executor.time: '" + config.time +
           "' is not a Slurm time; use minutes, MM:SS, HH:MM:SS or D-HH:MM:SS (e.g. 30 or 01:00:00)";
  }
  for (const auto& [field, value] : {std::pair<const char*, const std::string&>{"partition", config.partition},
                                     {"gres", config.gres},
                                     {"account", config.account}}) {
    if (hasControlChar(value) || value.find(' ') != std::string::npos) {
      return std::string("executor.") + field + ": '" + value + "' must be one word without spaces";
    }
  }
  for (const auto& arg : config.extraArgs) {
    if (hasControlChar(arg)) return "executor.extra_args: '" + arg + "' contains a control character";
    if (arg.empty()) return std::string("executor.extra_args: an argument is empty; remove it");
  }
  if (config.pollEvery.count() <= 0) return std::string("executor.poll_every: must be positive");
  if (config.nodeLostAfter.count() <= 0) return std::string("executor.node_lost_after: must be positive");
  return std::nullopt;
}

namespace {

// What makeExecutor hands out for a config that does not validate: the error surfaces on the
// first command, where the campaign already reports failures, instead of as a null pointer.
class InvalidExecutor final : public Executor {
 public:
  InvalidExecutor(std::string name, std::string error) : name_(std::move(name)), error_(std::move(error)) {}
  std::string name() const override { return name_; }
  RunResult run(const CommandSpec&, const RunObserver&) override {
    RunResult r;
    r.outcome = RunOutcome::FailedToStart;
    r.error = error_;
    return r;
  }

 private:
  std::string name_;
  std::string error_;
};

}  // namespace

std::unique_ptr<Executor> makeExecutor(const ExecutorConfig& config) {
  if (auto problem = validate(config)) return std::make_unique<InvalidExecutor>(toString(config.kind), *problem);
  if (config.kind == ExecutorKind::Slurm) return makeSlurmExecutor(config);
  return makeLocalExecutor();
}

}  // namespace kopt::exec
