#include "campaign/settings_diff.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "util/text_scanner.h"

namespace kopt::campaign {

namespace {

using util::TextScanner;

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

// Trailing separators and the blanks between them go (`64,` `64 ;` are 64), in one pass from the end.
std::string normalizeValue(std::string_view v) {
  std::size_t end = v.size();
  while (end > 0 && (v[end - 1] == ',' || v[end - 1] == ';' || v[end - 1] == ' ' || v[end - 1] == '\t' ||
                     v[end - 1] == '\r' || v[end - 1] == '\n')) {
    --end;
  }
  return squeeze(std::string(v.substr(0, end)));
}

bool cComments(SettingSyntax s) { return s == SettingSyntax::CFamily || s == SettingSyntax::Any; }
bool hashComments(SettingSyntax s) { return s != SettingSyntax::CFamily && s != SettingSyntax::Json; }

// `#define`, `#  include`, ... : the directive's word is the whole word after the '#'.
bool isDirective(const std::string& trimmed) {
  static const std::set<std::string_view> directives = {"define", "undef", "include", "if",    "ifdef", "ifndef",
                                                        "elif",   "else",  "endif",   "pragma", "error", "line"};
  TextScanner s(trimmed);
  if (!s.take('#')) return false;
  s.skipSpaces();
  return directives.count(s.takeWhile(util::isWordChar)) > 0;
}

// The line without its comments; `inBlock` carries a C block comment across lines.
std::string stripComments(const std::string& line, SettingSyntax syntax, bool& inBlock) {
  std::string out;
  const bool directive = isDirective(trim(line));
  bool outHasText = false;  // kept as we go: re-trimming `out` at each '#' was quadratic
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
        !(directive && !outHasText)) {
      break;
    }
    out += line[i];
    outHasText = outHasText || (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n');
  }
  return out;
}

// The four setting forms, each read left to right by a scanner (see util/text_scanner.h for why
// not std::regex). Each says whether `raw` is one and, if so, its name and its raw value.
struct RawSetting {
  std::string_view name, value;
};

// `#define NAME` or `#define NAME value`; `#define NAME(x) ...` is a function-like macro: code.
std::optional<RawSetting> readDefine(std::string_view raw) {
  TextScanner s(raw);
  s.skipSpaces();
  if (!s.take('#')) return std::nullopt;
  s.skipSpaces();
  if (!s.take("define") || s.skipSpaces() == 0) return std::nullopt;
  const auto name = s.identifier();
  if (name.empty() || (!s.atEnd() && s.skipSpaces() == 0)) return std::nullopt;
  return RawSetting{name, s.rest()};
}

// `NAME = value`, unindented (an indented one is a statement in a block), not `NAME == value`.
std::optional<RawSetting> readAssignment(std::string_view raw) {
  TextScanner s(raw);
  const auto name = s.identifier(".-");
  if (name.empty()) return std::nullopt;
  s.skipSpaces();
  if (!s.take('=')) return std::nullopt;
  s.skipSpaces();
  if (s.atEnd() || s.peek() == '=') return std::nullopt;
  return RawSetting{name, s.rest()};
}

// An optional YAML list marker: "- " (the dash needs a blank after it).
bool skipListMarker(TextScanner& s) {
  s.skipSpaces();
  if (!s.take('-')) return true;
  return s.skipSpaces() > 0;
}

// `key: value` at any depth (YAML needs the blank after the colon).
std::optional<RawSetting> readColonKey(std::string_view raw) {
  TextScanner s(raw);
  if (!skipListMarker(s)) return std::nullopt;
  const auto name = s.identifier(".-");
  if (name.empty()) return std::nullopt;
  s.skipSpaces();
  if (!s.take(':') || s.skipSpaces() == 0 || s.atEnd()) return std::nullopt;
  return RawSetting{name, s.rest()};
}

// `"key": value` or `'key': value` (JSON, quoted YAML keys).
std::optional<RawSetting> readQuotedKey(std::string_view raw) {
  TextScanner s(raw);
  if (!skipListMarker(s)) return std::nullopt;
  const char quote = s.peek();
  if ((quote != '"' && quote != '\'') || !s.take(quote)) return std::nullopt;
  const auto name = s.takeWhile([quote](char c) { return c != quote; });
  if (name.empty() || !s.take(quote)) return std::nullopt;
  s.skipSpaces();
  if (!s.take(':')) return std::nullopt;
  s.skipSpaces();
  if (s.atEnd()) return std::nullopt;
  return RawSetting{name, s.rest()};
}

bool parseSetting(const std::string& raw, SettingSyntax syntax, std::string& name, std::string& value) {
  const bool any = syntax == SettingSyntax::Any;
  std::optional<RawSetting> found;
  if (any || syntax == SettingSyntax::CFamily) found = readDefine(raw);
  if (!found && (any || syntax == SettingSyntax::Python || syntax == SettingSyntax::KeyEquals)) {
    found = readAssignment(raw);
    if (found && syntax == SettingSyntax::Python && found->name.find_first_of(".-") != std::string_view::npos) {
      return false;
    }
  }
  if (!found && (any || syntax == SettingSyntax::Yaml)) found = readColonKey(raw);
  if (!found && (any || syntax == SettingSyntax::Yaml || syntax == SettingSyntax::Json)) found = readQuotedKey(raw);
  if (!found) return false;
  name = std::string(found->name);
  value = normalizeValue(found->value);
  return true;
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
