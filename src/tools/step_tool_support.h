#pragma once
// The shared shape of rebuild_kernel and run_tests (one command, one log).
#include "tools/tool_support.h"

namespace kopt::tools {

json stepResultJson(const campaign::StepResult& r);
std::string stepResultText(const campaign::StepResult& r);
json stepOutputSchema();

}  // namespace kopt::tools
