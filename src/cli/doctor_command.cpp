// Placeholder until this command is implemented (tracked in the issues); it says so plainly.
#include <iostream>

#include "cli/commands.h"

namespace kopt::cli {

int doctorCommand(const Args&) {
  std::cerr << "kopt doctor: not implemented yet\n";
  return 2;
}

}  // namespace kopt::cli
