#pragma once
// Parsing the manifest's command strings ("FOO=1 python bench.py --x 'a b'") into argv + env
// without a shell: POSIX-style quoting (single, double, backslash), leading NAME=value words become
// environment assignments. Shell syntax we cannot honour without a shell (pipes, redirection, `;`,
// `&&`, `$(...)`, globs) is an error that says to wrap the command in `bash -c '...'` explicitly.
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kopt::exec {

struct ParsedCommand {
  std::map<std::string, std::string> env;
  std::vector<std::string> argv;
};

struct CommandParseError {
  std::string message;  // e.g. "unsupported shell operator '|' at column 17: ..."
};

std::variant<ParsedCommand, CommandParseError> parseCommandLine(const std::string& line);

}  // namespace kopt::exec
