#include "campaign/settings_diff.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

namespace kopt::campaign {

namespace {

struct Setting {
  std::string key;  // name + occurrence, so that a name repeated (#ifdef branches) pairs up in order
  std::string name;
  std::string value;
};

struct Parsed {
  std::vector<Setting> settings;
  std::map<std::string, int> codeLines;  // normalized line -> how often
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Runs of blanks become one space: re-indenting or re-aligning a line is not a change.
std::string squeeze(const std::string& s) {
  std::string out;
  bool blank = false;
  for (char c : trim(s)) {
    if (c == ' ' || c == '\t') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string normalizeValue(std::string v) {
  v = trim(v);
  while (!v.empty() && (v.back() == ',' || v.back() == ';')) v = trim(v.substr(0, v.size() - 1));
  return squeeze(v);
}

bool cComments(SettingSyntax s) { return s == SettingSyntax::CFamily || s == SettingSyntax::Any; }
bool hashComments(SettingSyntax s) { return s != SettingSyntax::CFamily && s != SettingSyntax::Json; }

bool isDirective(const std::string& trimmed) {
  static const std::regex directive(R"(^#\s*(define|undef|include|if|ifdef|ifndef|elif|else|endif|pragma|error|line)\b)");
  return std::regex_search(trimmed, directive);
}

// The line without its comments; `inBlock` carries a C block comment across lines.
std::string stripComments(const std::string& line, SettingSyntax syntax, bool& inBlock) {
  std::string out;
  const bool directive = isDirective(trim(line));
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (inBlock) {
      if (line.compare(i, 2, "*/") == 0) {
        inBlock = false;
        ++i;
      }
      continue;
    }
    if (cComments(syntax) && line.compare(i, 2, "/*") == 0) {
      inBlock = true;
      ++i;
      out += ' ';
      continue;
    }
    if (cComments(syntax) && line.compare(i, 2, "//") == 0) break;
    // `#` opens a comment at the start of a line or after a blank (YAML's rule), except for a
    // preprocessor directive's own `#`.
    if (hashComments(syntax) && line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t') &&
        !(directive && trim(out).empty())) {
      break;
    }
    out += line[i];
  }
  return out;
}

bool parseSetting(const std::string& raw, SettingSyntax syntax, std::string& name, std::string& value) {
  static const std::regex define(R"(^\s*#\s*define\s+([A-Za-z_]\w*)(\s+(.*))?$)");
  static const std::regex assign(R"(^([A-Za-z_][\w.\-]*)\s*=\s*([^=\s].*)$)");
  static const std::regex colon(R"(^\s*(?:-\s+)?([A-Za-z_][\w.\-]*)\s*:\s+(\S.*)$)");
  static const std::regex quoted(R"re(^\s*(?:-\s+)?(?:"([^"]+)"|'([^']+)')\s*:\s*(\S.*)$)re");
  std::smatch m;
  const bool any = syntax == SettingSyntax::Any;
  if ((any || syntax == SettingSyntax::CFamily) && std::regex_match(raw, m, define)) {
    name = m[1];
    value = normalizeValue(m[3]);
    return true;
  }
  if ((any || syntax == SettingSyntax::Python || syntax == SettingSyntax::KeyEquals) && std::regex_match(raw, m, assign)) {
    name = m[1];
    if (syntax == SettingSyntax::Python && name.find_first_of(".-") != std::string::npos) return false;
    value = normalizeValue(m[2]);
    return true;
  }
  if ((any || syntax == SettingSyntax::Yaml) && std::regex_match(raw, m, colon)) {
    name = m[1];
    value = normalizeValue(m[2]);
    return true;
  }
  if ((any || syntax == SettingSyntax::Yaml || syntax == SettingSyntax::Json) && std::regex_match(raw, m, quoted)) {
    name = m[1].matched ? m[1].str() : m[2].str();
    value = normalizeValue(m[3]);
    return true;
  }
  return false;
}

Parsed parse(const std::string& text, SettingSyntax syntax) {
  Parsed p;
  std::map<std::string, int> seen;
  bool inBlock = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string code = stripComments(line, syntax, inBlock);
    if (trim(code).empty()) continue;
    std::string name, value;
    // Trailing blanks go; leading ones stay, since `NAME = value` must be unindented.
    const std::string raw = code.substr(0, code.find_last_not_of(" \t") + 1);
    if (parseSetting(raw, syntax, name, value)) {
      p.settings.push_back({name + "#" + std::to_string(seen[name]++), name, value});
    } else {
      ++p.codeLines[squeeze(code)];
    }
  }
  return p;
}

}  // namespace

SettingSyntax settingSyntaxFor(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = base.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : lower(base.substr(dot + 1));
  static const std::vector<std::string> cfamily = {"h", "hh", "hpp", "hxx", "c", "cc", "cpp", "cxx", "cu", "cuh", "inl"};
  if (std::find(cfamily.begin(), cfamily.end(), ext) != cfamily.end()) return SettingSyntax::CFamily;
  if (ext == "py") return SettingSyntax::Python;
  if (ext == "yaml" || ext == "yml") return SettingSyntax::Yaml;
  if (ext == "json") return SettingSyntax::Json;
  if (ext == "toml" || ext == "ini" || ext == "cfg" || ext == "conf" || ext == "env" || ext == "properties") {
    return SettingSyntax::KeyEquals;
  }
  return SettingSyntax::Any;
}

std::string SettingChange::describe() const {
  auto shown = [](const std::string& v) { return v.empty() ? std::string("(defined)") : v; };
  if (before && after) return name + " " + shown(*before) + " -> " + shown(*after);
  if (after) return name + " added (= " + shown(*after) + ")";
  return name + " removed (was " + shown(before.value_or("")) + ")";
}

SettingsDiff diffSettings(const std::string& before, const std::string& after, SettingSyntax syntax) {
  const Parsed a = parse(before, syntax);
  const Parsed b = parse(after, syntax);
  SettingsDiff d;
  std::map<std::string, int> lines = a.codeLines;
  for (const auto& [line, n] : b.codeLines) lines[line] -= n;
  for (const auto& [line, n] : lines) d.otherLinesChanged += std::abs(n);

  std::map<std::string, const Setting*> was, now;
  for (const auto& s : a.settings) was[s.key] = &s;
  for (const auto& s : b.settings) now[s.key] = &s;
  // New or removed names in a code edit belong to the code; on their own they are settings.
  const bool namesCount = d.otherLinesChanged == 0;
  for (const auto& s : b.settings) {
    auto it = was.find(s.key);
    if (it == was.end()) {
      if (namesCount) d.counted.push_back({s.name, std::nullopt, s.value});
    } else if (it->second->value != s.value) {
      d.counted.push_back({s.name, it->second->value, s.value});
    }
  }
  if (namesCount) {
    for (const auto& s : a.settings) {
      if (!now.count(s.key)) d.counted.push_back({s.name, s.value, std::nullopt});
    }
  }
  return d;
}

int countChangedSettings(const std::string& before, const std::string& after, SettingSyntax syntax) {
  return static_cast<int>(diffSettings(before, after, syntax).counted.size());
}

}  // namespace kopt::campaign
