#include "campaign/python_shadows.h"

#include <algorithm>
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

}  // namespace

PythonShadows findPythonShadows(const fs::path& tree, const std::vector<std::string>& tracked) {
  const std::set<std::string> trackedSet(tracked.begin(), tracked.end());
  std::set<std::string> caches, shadowing;
  std::error_code ec;
  for (const std::string& source : tracked) {
    if (!endsWith(source, ".py")) continue;
    const fs::path rel(source);
    const std::string stem = rel.stem().string();
    const fs::path dirRel = rel.parent_path();
    const fs::path dir = tree / dirRel;
    // The cache directory next to the source.
    for (const auto& entry : fs::directory_iterator(dir / "__pycache__", fs::directory_options::skip_permission_denied, ec)) {
      const std::string name = entry.path().filename().string();
      if (isCacheOf(name, stem)) caches.insert((dirRel / "__pycache__" / name).generic_string());
    }
    ec.clear();
    // Siblings Python prefers to the source: a package directory, an extension module.
    if (stem != "__init__") {
      const fs::path packageRel = dirRel / stem;
      if (isPackageDir(tree / packageRel)) {
        const std::string text = packageRel.generic_string();
        // A package the repository tracks itself is its own layout, not a shadow.
        const auto first = trackedSet.lower_bound(text + "/");
        const bool trackedPackage = first != trackedSet.end() && first->rfind(text + "/", 0) == 0;
        if (!trackedPackage) shadowing.insert(text + "/");
      }
    }
    for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
      const std::string name = entry.path().filename().string();
      const std::string relText = (dirRel / name).generic_string();
      if (isExtensionOf(name, stem) && !trackedSet.count(relText)) shadowing.insert(relText);
    }
    ec.clear();
  }
  return {std::vector<std::string>(caches.begin(), caches.end()),
          std::vector<std::string>(shadowing.begin(), shadowing.end())};
}

}  // namespace kopt::campaign
