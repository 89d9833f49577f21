#include "campaign/python_shadows.h"

#include <map>
#include <set>
#include <system_error>

namespace kopt::campaign {

namespace fs = std::filesystem;

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// `X.<tag>.pyc` or `X.pyc` (a cache of module X; tags such as "cpython-311" or "cpython-311.opt-1").
bool isCacheOf(const std::string& file, const std::string& stem) {
  return file.rfind(stem + ".", 0) == 0 && endsWith(file, ".pyc");
}

// `X.so`, `X.<tag>.so` or `X.pyd`: an extension module named X, which Python tries before X.py.
bool isExtensionOf(const std::string& file, const std::string& stem) {
  if (file == stem + ".pyd") return true;
  return file.rfind(stem + ".", 0) == 0 && endsWith(file, ".so");
}

// A directory Python imports as package X before X.py: one with an __init__ of any kind.
bool isPackageDir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
    if (entry.path().filename().string().rfind("__init__.", 0) == 0) return true;
  }
  return false;
}

// The module a file in a source directory would be imported as, if it is a cache
// (`__pycache__/X.<tag>.pyc`), an extension module (`X.so`, `X.<tag>.so`, `X.pyd`) or a package
// directory `X/`: the part before the first dot.
std::string moduleOf(const std::string& file) { return file.substr(0, file.find('.')); }

// Whether an ignored entry (file, or folder ending in '/') is something Python imports as a module
// from the folder it sits in: X.py, a sourceless X.pyc, an extension module, or a package folder.
bool importable(const fs::path& tree, const std::string& entry) {
  if (!entry.empty() && entry.back() == '/') {
    const std::string name = fs::path(entry.substr(0, entry.size() - 1)).filename().string();
    return name != "__pycache__" && isPackageDir(tree / entry);
  }
  const std::string name = fs::path(entry).filename().string();
  return endsWith(name, ".py") || endsWith(name, ".pyc") || endsWith(name, ".pyd") || endsWith(name, ".so");
}

}  // namespace

PythonShadows findPythonShadows(const fs::path& tree, const std::vector<std::string>& tracked,
                                const std::vector<std::string>& ignored) {
  const std::set<std::string> trackedSet(tracked.begin(), tracked.end());
  // Tracked modules per directory, so each directory is read once however many sources it holds.
  std::map<fs::path, std::set<std::string>> modules;
  for (const std::string& source : tracked) {
    if (endsWith(source, ".py")) modules[fs::path(source).parent_path()].insert(fs::path(source).stem().string());
  }
  std::set<std::string> caches, shadowing;
  for (const auto& [dirRel, stems] : modules) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(tree / dirRel / "__pycache__", fs::directory_options::skip_permission_denied, ec)) {
      const std::string name = entry.path().filename().string();
      const std::string stem = moduleOf(name);
      if (stems.count(stem) && isCacheOf(name, stem)) caches.insert((dirRel / "__pycache__" / name).generic_string());
    }
    ec.clear();
    for (const auto& entry : fs::directory_iterator(tree / dirRel, fs::directory_options::skip_permission_denied, ec)) {
      const std::string name = entry.path().filename().string();
      const std::string stem = moduleOf(name);
      if (!stems.count(stem) || stem == "__init__") continue;
      const std::string relText = (dirRel / name).generic_string();
      if (name == stem && isPackageDir(entry.path())) {
        // A package the repository tracks itself is its own layout, not a shadow.
        const auto first = trackedSet.lower_bound(relText + "/");
        if (first == trackedSet.end() || first->rfind(relText + "/", 0) != 0) shadowing.insert(relText + "/");
      } else if (isExtensionOf(name, stem) && !trackedSet.count(relText)) {
        shadowing.insert(relText);
      }
    }
  }
  // The folders Python searches first: the root, and every folder of tracked .py files that is not
  // itself a package (inside a package a file is imported as pkg.X, never as a top-level name).
  std::set<fs::path> roots{fs::path()};
  for (const auto& [dirRel, stems] : modules) {
    if (!trackedSet.count((dirRel / "__init__.py").generic_string())) roots.insert(dirRel);
  }
  std::set<std::string> hidden;
  for (const std::string& entry : ignored) {
    const std::string trimmed = !entry.empty() && entry.back() == '/' ? entry.substr(0, entry.size() - 1) : entry;
    if (roots.count(fs::path(trimmed).parent_path()) && importable(tree, entry)) hidden.insert(entry);
  }
  return {std::vector<std::string>(caches.begin(), caches.end()), std::vector<std::string>(shadowing.begin(), shadowing.end()),
          std::vector<std::string>(hidden.begin(), hidden.end())};
}

}  // namespace kopt::campaign
