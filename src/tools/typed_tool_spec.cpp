#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolResult argumentError(const ArgumentProblem& problem) {
  return mcp::ToolResult::error(problem.message, problem.field, problem.fix);
}

}  // namespace kopt::tools
