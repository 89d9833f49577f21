#include "tools/prompts.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "util/text.h"

namespace kopt::tools {

namespace prompts {

namespace fs = std::filesystem;

namespace {

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

std::optional<std::string> scalar(const YAML::Node& node, const char* key, std::string* error) {
  const YAML::Node value = node[key];
  if (!value) return std::string();
  if (!value.IsScalar()) {
    fail(error, std::string("front matter field '") + key + "' must be a string");
    return std::nullopt;
  }
  return value.as<std::string>();
}

std::string clean(const std::string& value) {
  std::string out;
  for (char c : util::sanitizeUtf8(value)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  return out;
}

std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::optional<Skill> parseSkill(const std::string& rawText, std::string* error) {
  std::string text = rawText;
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // BOM
  text = util::replaceAll(text, "\r\n", "\n");
  if (text.rfind("---\n", 0) != 0) {
    fail(error, "no front matter: the file must start with a '---' line");
    return std::nullopt;
  }
  size_t close = text.find("\n---\n", 3);
  size_t bodyStart = close == std::string::npos ? std::string::npos : close + 5;
  if (close == std::string::npos && text.size() >= 4 && text.compare(text.size() - 4, 4, "\n---") == 0) {
    close = text.size() - 4;
    bodyStart = text.size();
  }
  if (close == std::string::npos) {
    fail(error, "front matter is not closed by a '---' line");
    return std::nullopt;
  }
  YAML::Node front;
  try {
    front = YAML::Load(text.substr(4, close - 4 + 1));
  } catch (const YAML::Exception& e) {
    fail(error, std::string("front matter is not valid YAML: ") + e.what());
    return std::nullopt;
  }
  if (!front.IsMap()) {
    fail(error, "front matter must be a YAML mapping");
    return std::nullopt;
  }
  Skill skill;
  auto name = scalar(front, "name", error);
  auto description = scalar(front, "description", error);
  auto title = scalar(front, "title", error);
  if (!name || !description || !title) return std::nullopt;
  skill.name = util::trim(*name);
  skill.description = util::trim(*description);
  skill.title = util::trim(*title);
  if (skill.name.empty() || skill.description.empty()) {
    fail(error, "front matter needs 'name' and 'description'");
    return std::nullopt;
  }
  bool nameOk = std::all_of(skill.name.begin(), skill.name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
  if (!nameOk || skill.name.size() > 64) {
    fail(error, "skill name '" + skill.name + "' must be 1-64 characters of [a-z0-9_-]");
    return std::nullopt;
  }
  if (const YAML::Node args = front["arguments"]) {
    if (!args.IsSequence()) {
      fail(error, "front matter field 'arguments' must be a list of {name, description, required}");
      return std::nullopt;
    }
    std::set<std::string> seen;
    for (const auto& a : args) {
      if (!a.IsMap() || !a["name"] || !a["name"].IsScalar()) {
        fail(error, "each entry of 'arguments' needs a 'name'");
        return std::nullopt;
      }
      mcp::PromptArgument arg;
      arg.name = util::trim(a["name"].as<std::string>());
      if (a["description"] && a["description"].IsScalar()) arg.description = a["description"].as<std::string>();
      if (a["required"]) {
        try {
          arg.required = a["required"].as<bool>();
        } catch (const YAML::Exception&) {
          fail(error, "argument '" + arg.name + "': 'required' must be true or false");
          return std::nullopt;
        }
      }
      if (arg.name.empty() || !seen.insert(arg.name).second) {
        fail(error, "argument names must be non-empty and unique ('" + arg.name + "')");
        return std::nullopt;
      }
      skill.arguments.push_back(std::move(arg));
    }
  }
  skill.body = bodyStart >= text.size() ? std::string() : text.substr(bodyStart);
  return skill;
}

std::vector<Skill> loadSkills(const fs::path& skillsDir, std::vector<std::string>* problems) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_regular_file(skillsDir / "SKILL.md", ec)) files.push_back(skillsDir / "SKILL.md");
  for (fs::directory_iterator it(skillsDir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code fileEc;
    if (it->is_directory(fileEc) && fs::is_regular_file(it->path() / "SKILL.md", fileEc))
      files.push_back(it->path() / "SKILL.md");
  }
  std::sort(files.begin(), files.end());
  std::vector<Skill> skills;
  std::set<std::string> names;
  for (const auto& file : files) {
    std::string error;
    auto skill = parseSkill(readText(file), &error);
    if (!skill) {
      if (problems) problems->push_back(file.string() + ": " + error);
      continue;
    }
    if (!names.insert(skill->name).second) {
      if (problems) problems->push_back(file.string() + ": skill name '" + skill->name + "' is used twice; skipped");
      continue;
    }
    skill->file = file;
    skills.push_back(std::move(*skill));
  }
  std::sort(skills.begin(), skills.end(), [](const Skill& a, const Skill& b) { return a.name < b.name; });
  return skills;
}

std::string fillArguments(const std::string& body, const nlohmann::json& arguments) {
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    size_t open = body.find("{{", i);
    if (open == std::string::npos) break;
    size_t close = body.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string name = body.substr(open + 2, close - open - 2);
    bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    out.append(body, i, open - i);
    if (!identifier) {
      out.append("{{");
      i = open + 2;
      continue;
    }
    std::string value;
    if (arguments.is_object() && arguments.contains(name)) {
      const auto& v = arguments[name];
      value = v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
    }
    value = clean(util::trim(value));
    out += value.empty() ? "<" + name + ">" : value;
    i = close + 2;
  }
  out.append(body, i, std::string::npos);
  return out;
}

std::vector<std::string> completeArgument(const std::string& argument, const std::string& prefix) {
  static const std::vector<std::string> backends = {"TRITON", "CK", "HIP", "CUDA", "HIPBLASLT", "TURBO", "CPU"};
  static const std::vector<std::string> gpus = {"gfx942", "gfx950", "gfx90a", "sm_80", "sm_90", "sm_100", "cpu"};
  const std::vector<std::string>* values = argument == "backend" || argument == "target_backend" ? &backends
                                           : argument == "gpu" || argument == "target_gpu"       ? &gpus
                                                                                                 : nullptr;
  std::vector<std::string> out;
  if (!values) return out;
  std::string lowered = util::toLower(prefix);
  for (const auto& v : *values)
    if (util::startsWith(util::toLower(v), lowered)) out.push_back(v);
  return out;
}

}  // namespace prompts

std::filesystem::path findSkillsDir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("KOPT_SKILLS_DIR"); env && *env) return fs::path(env);
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  fs::path dir = exe.parent_path();
  std::vector<fs::path> candidates = {dir / ".." / "share" / "kopt" / "skills", dir / ".." / "skills",
                                      dir / ".." / ".." / "skills"};
#ifdef KOPT_SOURCE_DIR
  candidates.push_back(fs::path(KOPT_SOURCE_DIR) / "skills");  // a binary copied away from its build
#endif
  for (const fs::path& candidate : candidates) {
    if (fs::is_regular_file(candidate / "SKILL.md", ec)) return fs::weakly_canonical(candidate, ec);
  }
  return {};
}

void registerPrompts(mcp::Registrar& registrar, const std::filesystem::path& skillsDir) {
  if (skillsDir.empty()) return;
  for (auto& skill : prompts::loadSkills(skillsDir)) {
    mcp::PromptSpec spec;
    spec.name = skill.name;
    spec.title = skill.title.empty() ? "Skill: " + skill.name : skill.title;
    spec.description = skill.description;
    spec.arguments = skill.arguments;
    std::string body = skill.body;
    std::string description = skill.description;
    spec.get = [body](const nlohmann::json& arguments) {
      mcp::PromptMessage message;
      message.role = "user";
      message.content = mcp::textContent(prompts::fillArguments(body, arguments));
      return std::vector<mcp::PromptMessage>{message};
    };
    spec.complete = [](const std::string& argument, const std::string& prefix) {
      return prompts::completeArgument(argument, prefix);
    };
    registrar.addPrompt(std::move(spec));
  }
}

}  // namespace kopt::tools
