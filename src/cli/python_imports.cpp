#include "cli/python_imports.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <set>

#include "util/text.h"

namespace kopt::cli {

namespace {

namespace fs = std::filesystem;

// The code of one physical line: string literals blanked to "" and the comment cut off.
// `openTriple` carries a triple-quoted string (a docstring) from one line to the next: the
// delimiter it needs to close, empty when none is open.
std::string codeOf(const std::string& line, std::string& openTriple) {
  std::string code;
  std::size_t i = 0;
  if (!openTriple.empty()) {
    const auto end = line.find(openTriple);
    if (end == std::string::npos) return code;
    i = end + 3;
    openTriple.clear();
  }
  while (i < line.size()) {
    const char c = line[i];
    if (c == '#') break;
    if (c != '"' && c != '\'') {
      code += c;
      ++i;
      continue;
    }
    const std::string triple(3, c);
    if (line.compare(i, 3, triple) == 0) {
      const auto end = line.find(triple, i + 3);
      if (end == std::string::npos) {
        openTriple = triple;
        break;
      }
      i = end + 3;
    } else {
      ++i;
      while (i < line.size() && line[i] != c) i += line[i] == '\\' ? 2 : 1;
      ++i;
    }
    code += "\"\"";
  }
  return code;
}

bool dottedName(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

// "x as y" -> "x"
std::string beforeAs(std::string_view item) {
  const std::string t = util::trim(item);
  const auto as = t.find(" as ");
  return util::trim(as == std::string::npos ? std::string_view(t) : std::string_view(t).substr(0, as));
}

void parseStatement(const std::string& statement, std::vector<PythonImport>& out) {
  if (util::startsWith(statement, "import ")) {
    for (const auto& item : util::split(statement.substr(7), ',')) {
      const std::string name = beforeAs(item);
      if (dottedName(name)) out.push_back({0, name, {}});
    }
    return;
  }
  if (!util::startsWith(statement, "from ")) return;
  const auto import = statement.find(" import ");
  if (import == std::string::npos) return;
  std::string from = util::trim(std::string_view(statement).substr(5, import - 5));
  PythonImport i;
  while (i.level < static_cast<int>(from.size()) && from[i.level] == '.') ++i.level;
  i.module = from.substr(i.level);
  if (!i.module.empty() && !dottedName(i.module)) return;
  if (i.level == 0 && i.module.empty()) return;
  std::string names = statement.substr(import + 8);
  names.erase(std::remove_if(names.begin(), names.end(), [](char c) { return c == '(' || c == ')'; }), names.end());
  for (const auto& item : util::split(names, ',')) {
    const std::string name = beforeAs(item);
    if (name == "*" || dottedName(name)) i.names.push_back(name);
  }
  out.push_back(std::move(i));
}

}  // namespace

std::vector<PythonImport> parsePythonImports(std::string_view source) {
  const auto lines = util::splitLines(source);
  std::vector<std::string> code;
  std::string openTriple;
  for (const auto& line : lines) code.push_back(codeOf(line, openTriple));
  std::vector<PythonImport> out;
  // An import list goes on over the next lines inside parentheses or after a backslash.
  auto continues = [](const std::string& s) {
    return (!s.empty() && s.back() == '\\') || std::count(s.begin(), s.end(), '(') > std::count(s.begin(), s.end(), ')');
  };
  for (std::size_t n = 0; n < code.size(); ++n) {
    const auto statements = util::split(code[n], ';');
    for (std::size_t k = 0; k < statements.size(); ++k) {
      std::string s = util::trim(statements[k]);
      if (!util::startsWith(s, "import ") && !util::startsWith(s, "from ")) continue;
      while (k + 1 == statements.size() && n + 1 < code.size() && continues(s)) {  // only a line's last statement goes on
        if (s.back() == '\\') s.pop_back();
        s += " " + util::trim(code[++n]);
      }
      parseStatement(s, out);
    }
  }
  return out;
}

std::vector<std::string> importedRepoFiles(const std::string& file, const RepoFileReader& read, std::size_t limit) {
  const fs::path start = fs::path(file).lexically_normal();
  std::set<std::string> seen{start.generic_string()}, missing;
  std::vector<std::string> found;
  std::deque<std::pair<fs::path, std::string>> pending;  // read, not yet scanned

  // True when `p` is a file of the repository; a new one is queued for its own imports.
  auto exists = [&](const fs::path& p) {
    const std::string key = p.lexically_normal().generic_string();
    if (key.empty() || util::startsWith(key, "..") || p.is_absolute()) return false;
    if (seen.count(key)) return true;
    if (missing.count(key) || found.size() >= limit) return false;
    auto text = read(key);
    if (!text) {
      missing.insert(key);
      return false;
    }
    seen.insert(key);
    found.push_back(key);
    pending.emplace_back(key, std::move(*text));
    return true;
  };
  // Module `parts` under the folder `base`: its file, and the __init__.py of each package on the way.
  auto module = [&](const fs::path& base, const std::vector<std::string>& parts) {
    fs::path dir = base;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) dir /= parts[k];
    const fs::path leaf = parts.empty() ? base / "__init__.py" : dir / parts.back();
    const bool hit = parts.empty() ? exists(leaf) : exists(fs::path(leaf).concat(".py")) || exists(leaf / "__init__.py");
    if (!hit) return false;
    fs::path pkg = base;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) exists((pkg /= parts[k]) / "__init__.py");
    return true;
  };
  auto withNames = [&](const fs::path& base, const PythonImport& i) {
    const std::vector<std::string> parts = i.module.empty() ? std::vector<std::string>{} : util::split(i.module, '.');
    bool hit = module(base, parts);
    for (const auto& name : i.names) {
      if (name == "*") continue;
      auto sub = parts;
      for (const auto& p : util::split(name, '.')) sub.push_back(p);
      hit = module(base, sub) || hit;
    }
    return hit;
  };

  const fs::path hooksDir = start.parent_path();
  std::vector<fs::path> roots{hooksDir};
  if (!hooksDir.empty()) roots.emplace_back();  // the repository root
  auto text = read(start.generic_string());
  if (text) pending.emplace_back(start, std::move(*text));
  while (!pending.empty()) {
    const auto [path, source] = std::move(pending.front());
    pending.pop_front();
    for (const PythonImport& i : parsePythonImports(source)) {
      if (i.level == 0) {
        for (const auto& root : roots) {
          if (withNames(root, i)) break;  // the first folder on sys.path that holds it wins
        }
        continue;
      }
      // A relative import: from the importing file's package, one folder up per extra dot.
      const auto dirs = util::split(path.parent_path().generic_string(), '/');
      const int depth = path.parent_path().empty() ? 0 : static_cast<int>(dirs.size());
      if (depth - (i.level - 1) < 1) continue;  // above the top package: Python refuses it too
      fs::path base;
      for (int k = 0; k < depth - (i.level - 1); ++k) base /= dirs[k];
      withNames(base, i);
    }
  }
  return found;
}

}  // namespace kopt::cli
