#pragma once
// A scripted campaign: the steps an agent would take (tool calls, and the one-line source edits it
// makes between them), stored as JSON so that `kopt demo` (C++, over stdio) and the end-to-end test
// (the official TypeScript SDK) replay exactly the same campaign. Format: tools/demo/README.md.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::cli {

struct SourceEdit {
  std::string file;     // relative to the campaign's repository
  std::string replace;  // must occur exactly once
  std::string with;
};

struct ToolStep {
  std::string tool;
  nlohmann::json arguments;                        // strings may hold ${variables}
  std::map<std::string, std::string> capture;      // variable -> JSON pointer into structuredContent
  std::map<std::string, nlohmann::json> expect;    // JSON pointer -> value, or array of allowed values
  bool expectError = false;                        // the call must be refused (isError)
};

struct ScriptStep {
  std::string say;  // narration printed before the step
  std::variant<ToolStep, SourceEdit> action;
};

struct CampaignScript {
  std::string name;
  std::string kernelDir;  // relative to the kopt source tree; copied into a fresh git repository
  std::vector<ScriptStep> steps;
};

// Parses a script; errors name the step index and the field.
std::variant<CampaignScript, std::string> parseCampaignScript(const nlohmann::json& document);

// Replaces ${name} in every string of `value` (recursively); "@file:<path>" strings become the
// file's text, read relative to `sourceDir`. Unknown variables are an error naming them.
std::variant<nlohmann::json, std::string> substitute(const nlohmann::json& value,
                                                     const std::map<std::string, std::string>& variables,
                                                     const std::filesystem::path& sourceDir);

// Applies an edit; the error says what was not found (or found more than once) in which file.
std::optional<std::string> applyEdit(const std::filesystem::path& repo, const SourceEdit& edit);

// Checks `expect` against a structuredContent; returns one message per mismatch.
std::vector<std::string> checkExpectations(const ToolStep& step, const nlohmann::json& structured);

}  // namespace kopt::cli
