#include "cli/campaign_script.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kopt::cli {

using json = nlohmann::json;

namespace {

std::optional<std::string> readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::variant<std::string, std::string> expand(const std::string& text, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "${") == 0) {
      const size_t end = text.find('}', i + 2);
      if (end == std::string::npos) return std::variant<std::string, std::string>(std::in_place_index<1>, "unterminated ${ in '" + text + "'");
      const std::string name = text.substr(i + 2, end - i - 2);
      auto it = vars.find(name);
      if (it == vars.end()) {
        return std::variant<std::string, std::string>(std::in_place_index<1>,
                                                      "unknown variable ${" + name + "} (capture it from an earlier step)");
      }
      out += it->second;
      i = end + 1;
    } else {
      out += text[i++];
    }
  }
  return std::variant<std::string, std::string>(std::in_place_index<0>, out);
}

}  // namespace

std::variant<CampaignScript, std::string> parseCampaignScript(const json& document) {
  CampaignScript script;
  if (!document.is_object()) return std::string("the script must be a JSON object");
  script.name = document.value("name", "campaign");
  script.kernelDir = document.value("kernel_dir", "");
  if (script.kernelDir.empty()) return std::string("kernel_dir: required (e.g. \"kernels/cpu\")");
  if (!document.contains("steps") || !document["steps"].is_array()) return std::string("steps: required array");
  int index = 0;
  for (const json& raw : document["steps"]) {
    const std::string where = "steps[" + std::to_string(index++) + "]";
    if (!raw.is_object()) return where + ": must be an object";
    ScriptStep step;
    step.say = raw.value("say", "");
    if (raw.contains("edit")) {
      const json& e = raw["edit"];
      SourceEdit edit{e.value("file", ""), e.value("replace", ""), e.value("with", "")};
      if (edit.file.empty() || edit.replace.empty()) return where + ".edit: needs file and replace";
      step.action = edit;
    } else if (raw.contains("tool")) {
      if (!raw["tool"].is_string()) return where + ".tool: must be a tool name";
      ToolStep tool;
      tool.tool = raw["tool"].get<std::string>();
      tool.arguments = raw.value("args", json::object());
      // Named copies: iterating items() of a temporary would dangle.
      const json capture = raw.value("capture", json::object());
      const json expect = raw.value("expect", json::object());
      for (auto& [k, v] : capture.items()) {
        if (!v.is_string()) return where + ".capture." + k + ": must be a JSON pointer string like \"/campaign_dir\"";
        tool.capture[k] = v.get<std::string>();
      }
      for (auto& [k, v] : expect.items()) tool.expect[k] = v;
      tool.expectError = raw.value("expect_error", false);
      step.action = tool;
    } else {
      return where + ": needs either \"tool\" or \"edit\"";
    }
    script.steps.push_back(std::move(step));
  }
  return script;
}

std::variant<json, std::string> substitute(const json& value, const std::map<std::string, std::string>& variables,
                                           const std::filesystem::path& sourceDir) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text.rfind("@file:", 0) == 0) {
      auto content = readText(sourceDir / text.substr(6));
      if (!content) return "cannot read " + (sourceDir / text.substr(6)).string();
      return json(*content);
    }
    auto expanded = expand(text, variables);
    if (expanded.index() == 1) return std::get<1>(expanded);
    return json(std::get<0>(expanded));
  }
  if (value.is_array() || value.is_object()) {
    json out = value;
    for (auto it = out.begin(); it != out.end(); ++it) {
      auto sub = substitute(*it, variables, sourceDir);
      if (sub.index() == 1) return std::get<1>(sub);
      *it = std::get<0>(sub);
    }
    return out;
  }
  return value;
}

std::optional<std::string> applyEdit(const std::filesystem::path& repo, const SourceEdit& edit) {
  const auto path = repo / edit.file;
  auto text = readText(path);
  if (!text) return "cannot read " + path.string();
  const size_t first = text->find(edit.replace);
  if (first == std::string::npos) return "'" + edit.replace + "' not found in " + edit.file;
  if (text->find(edit.replace, first + 1) != std::string::npos) return "'" + edit.replace + "' occurs more than once in " + edit.file;
  text->replace(first, edit.replace.size(), edit.with);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *text;
  if (!out) return "cannot write " + path.string();
  return std::nullopt;
}

std::vector<std::string> checkExpectations(const ToolStep& step, const json& structured) {
  std::vector<std::string> problems;
  for (const auto& [pointer, wanted] : step.expect) {
    json::json_pointer ptr(pointer);
    if (!structured.contains(ptr)) {
      problems.push_back(pointer + " is missing from the result");
      continue;
    }
    const json& got = structured.at(ptr);
    const bool ok = wanted.is_array() ? std::find(wanted.begin(), wanted.end(), got) != wanted.end() : got == wanted;
    if (!ok) problems.push_back(pointer + " is " + got.dump() + ", expected " + wanted.dump());
  }
  return problems;
}

}  // namespace kopt::cli
