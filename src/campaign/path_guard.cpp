#include "campaign/path_guard.h"

#include "util/text.h"

namespace kopt::campaign {
namespace fs = std::filesystem;

namespace {

bool isInside(const fs::path& root, const fs::path& p) {
  auto rel = p.lexically_relative(root);
  if (rel.empty()) return false;
  auto first = *rel.begin();
  return first != "..";
}

PathRefusal refuse(const std::string& argument, const std::string& userPath, const std::string& why) {
  return {argument, argument + " = '" + util::sanitizeUtf8(userPath) + "': " + why};
}

}  // namespace

std::variant<fs::path, PathRefusal> resolveInside(const fs::path& root, const std::string& userPath,
                                                  const std::string& argument,
                                                  const PathGuardOptions& options) {
  std::error_code ec;
  fs::path canonicalRoot = fs::canonical(root, ec);
  if (ec) {
    return refuse(argument, userPath,
                  options.rootLabel + " " + root.string() + " does not exist (" + ec.message() + ")");
  }
  if (userPath.empty()) return refuse(argument, userPath, "is empty; give a path");
  if (userPath.find('\0') != std::string::npos) {
    return refuse(argument, userPath, "contains a NUL byte");
  }

  fs::path given(userPath);
  fs::path joined = given.is_absolute() ? given : canonicalRoot / given;
  fs::path lexical = joined.lexically_normal();
  if (!lexical.empty() && lexical.filename().empty()) lexical = lexical.parent_path();  // "dir/"
  // An absolute path spelled through the root as the caller named it (e.g. /tmp/x/repo/f where
  // /tmp is a symlink) is rebased onto the canonical root before the checks.
  fs::path spelledRoot = fs::absolute(root).lexically_normal();
  if (!spelledRoot.empty() && spelledRoot.filename().empty()) spelledRoot = spelledRoot.parent_path();
  if (given.is_absolute() && spelledRoot != canonicalRoot &&
      (lexical == spelledRoot || isInside(spelledRoot, lexical))) {
    lexical = (canonicalRoot / lexical.lexically_relative(spelledRoot)).lexically_normal();
    if (!lexical.empty() && lexical.filename().empty()) lexical = lexical.parent_path();
  }
  if (lexical != canonicalRoot && !isInside(canonicalRoot, lexical)) {
    std::string why = given.is_absolute()
                          ? "is an absolute path outside " + options.rootLabel + " " +
                                canonicalRoot.string()
                          : "resolves to " + lexical.string() + ", outside " + options.rootLabel +
                                " " + canonicalRoot.string() + " ('..' escapes are refused)";
    return refuse(argument, userPath, why);
  }

  // Walk the components physically: every symlink met (dangling ones included, since writing
  // through them would create a file wherever they point) must stay inside the root.
  fs::path rel = lexical.lexically_relative(canonicalRoot);
  fs::path current = canonicalRoot;
  int hops = 0;
  std::vector<fs::path> pending(rel.begin(), rel.end());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const fs::path& comp = pending[i];
    if (comp == "." || comp.empty()) continue;
    if (comp == "..") {
      current = current.parent_path();
      if (current != canonicalRoot && !isInside(canonicalRoot, current)) {
        return refuse(argument, userPath, "climbs out of " + options.rootLabel + " through a symlink");
      }
      continue;
    }
    fs::path next = current / comp;
    auto st = fs::symlink_status(next, ec);
    if (!ec && fs::is_symlink(st)) {
      if (++hops > 40) return refuse(argument, userPath, "has too many levels of symlinks");
      fs::path target = fs::read_symlink(next, ec);
      if (ec) return refuse(argument, userPath, "has an unreadable symlink " + next.string());
      fs::path resolved = (target.is_absolute() ? target : current / target).lexically_normal();
      if (resolved != canonicalRoot && !isInside(canonicalRoot, resolved)) {
        return refuse(argument, userPath,
                      "goes through the symlink " + next.string() + " -> " + target.string() +
                          ", which leads outside " + options.rootLabel + " " + canonicalRoot.string());
      }
      // Continue from the link's target: splice its components in front of the rest.
      fs::path targetRel = resolved.lexically_relative(canonicalRoot);
      std::vector<fs::path> rest(targetRel.begin(), targetRel.end());
      rest.insert(rest.end(), pending.begin() + static_cast<long>(i) + 1, pending.end());
      pending = std::move(rest);
      current = canonicalRoot;
      i = static_cast<std::size_t>(-1);
      continue;
    }
    current = next;
  }

  if (current == canonicalRoot && !options.allowRoot) {
    return refuse(argument, userPath, "names " + options.rootLabel + " itself; give a path inside it");
  }
  if (options.mustExist && !fs::exists(current, ec)) {
    return refuse(argument, userPath, "does not exist in " + options.rootLabel);
  }
  return current;
}

std::variant<std::string, PathRefusal> relativeInside(const fs::path& root, const std::string& userPath,
                                                      const std::string& argument,
                                                      const PathGuardOptions& options) {
  auto r = resolveInside(root, userPath, argument, options);
  if (auto* refusal = std::get_if<PathRefusal>(&r)) return *refusal;
  fs::path canonicalRoot = fs::canonical(root);
  fs::path rel = std::get<fs::path>(r).lexically_relative(canonicalRoot);
  std::string s = rel.generic_string();
  return s.empty() ? std::string(".") : s;
}

}  // namespace kopt::campaign
