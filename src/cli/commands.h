#pragma once
// The `kopt` subcommands. Each lives in its own file under src/cli/ and receives the arguments
// that follow its name (argv after "kopt <command>"). Each returns the process exit code.
#include <filesystem>
#include <string>
#include <vector>

namespace kopt::cli {

using Args = std::vector<std::string>;

int serveCommand(const Args& args);   // kopt serve [--stdio | --http HOST:PORT] [...]
int callCommand(const Args& args);    // kopt call <tool> '<json-args>'
int demoCommand(const Args& args);    // kopt demo: a whole CPU campaign through MCP
// Where kopt demo finds its script and kernel (demo_command.cpp says in which order it looks).
std::filesystem::path demoSourceDir();
int initCommand(const Args& args);    // kopt init: a campaign on the user's own kernel
int doctorCommand(const Args& args);  // kopt doctor: what is installed, what would fail
int benchCommand(const Args& args);   // kopt bench: kopt's own speed (docs/performance.md)

}  // namespace kopt::cli
