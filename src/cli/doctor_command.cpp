// kopt doctor: what is installed, which GPU, what would fail, each with the fix. Exit 0 when the
// CPU demo can run (compiler, bash, git, a writable workspace), 1 otherwise, 2 on bad usage.
#include <iostream>

#include "campaign/manifest.h"
#include "cli/commands.h"
#include "cli/doctor_checks.h"
#include "util/atomic_file.h"

namespace kopt::cli {

int doctorCommand(const Args& args) {
  bool json = false;
  std::filesystem::path workspace = std::filesystem::current_path();
  std::optional<exec::ExecutorConfig> executor;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--workspace" && i + 1 < args.size()) {
      workspace = args[++i];
    } else if (args[i] == "--manifest" && i + 1 < args.size()) {
      const std::string path = args[++i];
      auto text = util::readFileIfExists(path);
      if (!text) {
        std::cerr << "kopt doctor: --manifest " << path << ": cannot read the file\n";
        return 2;
      }
      auto parsed = campaign::parseManifest(*text);
      if (auto* errors = std::get_if<std::vector<campaign::FieldError>>(&parsed)) {
        for (const auto& e : *errors) std::cerr << "kopt doctor: --manifest " << path << ": " << campaign::toString(e) << "\n";
        return 2;
      }
      executor = std::get<campaign::Manifest>(parsed).executor;
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::cout << "Usage: kopt doctor [--json] [--workspace DIR] [--manifest FILE]\n"
                   "Checks the toolchain, git, Python/torch/Triton, GPU compilers and devices, workspace\n"
                   "permissions, Node (for the test clients), Slurm and the executor (the manifest's\n"
                   "executor block with --manifest: its partition, nodes and GPUs); prints a fix for\n"
                   "each problem. Exit status 0 when the CPU demo can run.\n";
      return 0;
    } else {
      std::cerr << "kopt doctor: unknown argument '" << args[i] << "' (use --json, --workspace DIR or --manifest FILE)\n";
      return 2;
    }
  }
  auto checks = doctor::runChecks(doctor::systemProbes(), workspace, executor);
  if (json)
    std::cout << doctor::renderJson(checks, workspace).dump(2) << "\n";
  else
    std::cout << doctor::renderText(checks);
  return doctor::demoCanRun(checks) ? 0 : 1;
}

}  // namespace kopt::cli
