#pragma once
// Resolving a path a tool received (from an agent) inside an allowed root: the repository or the
// campaign directory. Refused: ".." escapes, absolute paths outside the root, symlinks anywhere
// along the path that lead outside. Errors name the tool argument.
#include <filesystem>
#include <string>
#include <variant>

namespace kopt::campaign {

struct PathRefusal {
  std::string argument;  // "files[2]", "campaign_dir"
  std::string message;   // "files[2] = '../x': resolves to /a/x, outside the repository /a/repo"
};

struct PathGuardOptions {
  bool mustExist = false;   // refuse a path that does not exist
  bool allowRoot = true;    // the root itself is acceptable
  std::string rootLabel = "the allowed root";  // "the repository", "the campaign directory"
};

// Returns the absolute, lexically normal path inside `root` (root is made canonical first; it must
// exist). A relative userPath is taken relative to root.
std::variant<std::filesystem::path, PathRefusal> resolveInside(
    const std::filesystem::path& root, const std::string& userPath, const std::string& argument,
    const PathGuardOptions& options = {});

// resolveInside, then relative to the canonical root ("src/kernel.py"); generic '/' separators.
std::variant<std::string, PathRefusal> relativeInside(const std::filesystem::path& root,
                                                      const std::string& userPath,
                                                      const std::string& argument,
                                                      const PathGuardOptions& options = {});

}  // namespace kopt::campaign
