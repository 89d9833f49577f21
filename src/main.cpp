// kopt: an MCP server that referees GPU-kernel optimization campaigns.
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "exec/stray_processes.h"

namespace {

const char* kUsage = R"(kopt: referee for GPU-kernel optimization campaigns, served over MCP

Usage:
  kopt serve [--stdio]                 serve MCP over stdio (the default)
  kopt serve --http HOST:PORT          serve MCP over Streamable HTTP at http://HOST:PORT/mcp
             [--token-file FILE] [--conformance-fixtures] [--workspace DIR]
  kopt call <tool> '<json-args>'       run one tool in-process and print its result
  kopt demo [--dir DIR] [--script FILE] [--source DIR] [--repo GIT_REPO] [--quiet]
                                       run a whole campaign on the bundled CPU kernel through MCP
                                       (--script: a scripted campaign, --repo: on your own
                                       repository; tools/demo/README.md)
  kopt init --kernel FILE.py --shape LABEL=B,M,N[,K] ...
                                       set up a campaign on your own kernel: harness config,
                                       manifest, one checked run (kopt init --help)
  kopt doctor [--json] [--manifest F]  report what is installed, which GPU, what would fail
  kopt bench                           measure kopt's own speed (see docs/performance.md)
  kopt --version | --help
)";

}  // namespace

int main(int argc, char** argv) {
  // Every process a command orphans comes back to kopt instead of init, so one that left its
  // command's session is found and ended (exec/stray_processes.h).
  kopt::exec::becomeSubreaper();
  if (argc < 2) return kopt::cli::serveCommand({});
  const std::string command = argv[1];
  kopt::cli::Args rest(argv + 2, argv + argc);
  if (command == "--version" || command == "-V" || command == "version") {
    std::cout << "kopt " << KOPT_VERSION << "\n";
    return 0;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "serve") return kopt::cli::serveCommand(rest);
  if (command == "call") return kopt::cli::callCommand(rest);
  if (command == "demo") return kopt::cli::demoCommand(rest);
  if (command == "init") return kopt::cli::initCommand(rest);
  if (command == "doctor") return kopt::cli::doctorCommand(rest);
  if (command == "bench") return kopt::cli::benchCommand(rest);
  if (command.rfind("--", 0) == 0) return kopt::cli::serveCommand(kopt::cli::Args(argv + 1, argv + argc));
  std::cerr << "kopt: unknown command '" << command << "'\n\n" << kUsage;
  return 2;
}
