#pragma once
// The words each tool shows the agent in tools/list: its name, a title for people and
// the description the agent plans by (which phase it belongs to, what it changes, what comes
// next). They live in one table, apart from the adapters, so the whole loop can be read and
// reviewed as one text and an adapter keeps only its wiring.
#include <string>

namespace kopt::tools {

// The words of a tool.
struct ToolText {
  std::string name, title, description;
};

// The words of the tool `name`; a name without words is a programming error (std::logic_error).
ToolText toolText(const std::string& name);

}  // namespace kopt::tools
