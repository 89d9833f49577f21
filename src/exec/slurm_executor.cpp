#include "exec/slurm_executor.h"

namespace kopt::exec {
namespace {

class SlurmExecutor final : public Executor {
 public:
  explicit SlurmExecutor(ExecutorConfig config) : config_(std::move(config)) {}
  std::string name() const override { return "slurm"; }
  RunResult run(const CommandSpec&, const RunObserver&) override {
    RunResult r;
    r.outcome = Outcome::FailedToStart;
    r.error = "the Slurm backend is not built yet (issue 8); use executor.kind: local";
    return r;
  }

 private:
  ExecutorConfig config_;
};

}  // namespace

std::unique_ptr<Executor> makeSlurmExecutor(const ExecutorConfig& config) {
  return std::make_unique<SlurmExecutor>(config);
}

}  // namespace kopt::exec
