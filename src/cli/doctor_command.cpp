// kopt doctor: what is installed, which GPU, what would fail, each with the fix. Exit 0 when the
// CPU demo can run (compiler, bash, git, a writable workspace), 1 otherwise, 2 on bad usage.
#include <iostream>

#include "cli/commands.h"
#include "cli/doctor_checks.h"

namespace kopt::cli {

int doctorCommand(const Args& args) {
  bool json = false;
  std::filesystem::path workspace = std::filesystem::current_path();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--workspace" && i + 1 < args.size()) {
      workspace = args[++i];
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::cout << "Usage: kopt doctor [--json] [--workspace DIR]\n"
                   "Checks the toolchain, git, Python/torch/Triton, GPU compilers and devices, workspace\n"
                   "permissions, Node (for the test clients) and Slurm; prints a fix for each problem.\n"
                   "Exit status 0 when the CPU demo can run.\n";
      return 0;
    } else {
      std::cerr << "kopt doctor: unknown argument '" << args[i] << "' (use --json or --workspace DIR)\n";
      return 2;
    }
  }
  auto checks = doctor::runChecks(doctor::systemProbes(), workspace);
  if (json)
    std::cout << doctor::renderJson(checks, workspace).dump(2) << "\n";
  else
    std::cout << doctor::renderText(checks);
  return doctor::demoCanRun(checks) ? 0 : 1;
}

}  // namespace kopt::cli
