#pragma once
// The skills as MCP prompts: one prompt per SKILL.md (skills/SKILL.md and skills/*/SKILL.md),
// named by the skill's front matter `name`, described by its `description`, with the arguments
// its front matter lists (`arguments: [{name, description, required}]`). prompts/get returns the
// skill text with {{argument}} placeholders filled in (a missing optional argument reads
// <argument>), so a client can start a campaign from a prompt. Arguments `backend` and `gpu`
// complete from the values kopt knows.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/tool_api.h"

namespace kopt::tools {

void registerPrompts(mcp::Registrar& registrar, const std::filesystem::path& skillsDir);

// Where the skills are: $KOPT_SKILLS_DIR, else the first of <exe>/../share/kopt/skills,
// <exe>/../skills, <exe>/../../skills that holds a SKILL.md (an installed kopt, or a build
// directory inside the source tree). Empty when none is found.
std::filesystem::path findSkillsDir();

namespace prompts {

struct Skill {
  std::string name;
  std::string title;
  std::string description;
  std::vector<mcp::PromptArgument> arguments;
  std::string body;  // the markdown after the front matter
  std::filesystem::path file;
};

// Parses "---\n<yaml>\n---\n<body>". nullopt with the reason when the front matter is missing or
// lacks name/description, or a field has the wrong type.
std::optional<Skill> parseSkill(const std::string& text, std::string* error = nullptr);

// Every skill under `skillsDir`, sorted by name; unreadable or invalid files and duplicate names
// are skipped with a line in `problems`.
std::vector<Skill> loadSkills(const std::filesystem::path& skillsDir, std::vector<std::string>* problems = nullptr);

// {{name}} -> the argument's value (control characters and newlines flattened to spaces), or
// <name> when absent. Unknown placeholders are left alone.
std::string fillArguments(const std::string& body, const nlohmann::json& arguments);

// Known values for `backend` and `gpu` starting with `prefix` (case-insensitive); empty otherwise.
std::vector<std::string> completeArgument(const std::string& argument, const std::string& prefix);

}  // namespace prompts
}  // namespace kopt::tools
