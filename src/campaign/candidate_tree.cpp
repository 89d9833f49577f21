#include "campaign/candidate_tree.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "campaign/lineage/git_process.h"
#include "campaign/python_shadows.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

bool inScope(const std::string& file, const std::string& scope) {
  if (scope.empty() || scope == ".") return true;
  std::string s = scope;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return file == s || (file.size() > s.size() && file.compare(0, s.size(), s) == 0 && file[s.size()] == '/');
}

bool inAnyScope(const std::string& file, const std::vector<std::string>& scopes) {
  return std::any_of(scopes.begin(), scopes.end(), [&](const std::string& s) { return inScope(file, s); });
}

std::vector<std::string> listScopeFiles(const fs::path& repo, const std::vector<std::string>& paths) {
  std::vector<std::string> args{"ls-files", "-c", "-o", "--exclude-standard", "-z", "--"};
  for (const auto& p : paths) args.push_back(p.empty() ? "." : p);
  auto out = lineage::runGit(repo, args);
  std::set<std::string> files;
  if (out.ok()) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < out.out.size(); ++i) {
      if (out.out[i] == '\0') {
        std::string f = out.out.substr(start, i - start);
        if (!f.empty() && !util::startsWith(f, ".kopt/")) files.insert(f);
        start = i + 1;
      }
    }
  }
  return {files.begin(), files.end()};
}

std::string treeFingerprint(const fs::path& repo, const std::vector<std::string>& paths) {
  util::Sha256 h;
  for (const auto& f : listScopeFiles(repo, paths)) {
    std::error_code ec;
    const fs::path p = repo / f;
    std::string digest = "<missing>";
    if (fs::is_regular_file(p, ec)) {
      try {
        digest = util::sha256FileHex(p);
      } catch (const std::exception&) {
        digest = "<unreadable>";
      }
    }
    h.update(f);
    h.update(std::string_view("\0", 1));
    h.update(digest);
    h.update(std::string_view("\n", 1));
  }
  return h.finishHex();
}

std::vector<std::string> kernelScope(const OpenCampaign& session) {
  std::vector<std::string> scope = session.manifest.kernelSource;
  if (session.state.openRound) {
    for (const auto& f : session.state.openRound->declaredFiles) {
      if (std::find(scope.begin(), scope.end(), f) == scope.end()) scope.push_back(f);
    }
  }
  return scope;
}

namespace {

// The repository's tracked files (`git ls-files`, kopt's neutral git view), repo-relative.
std::vector<std::string> trackedFiles(const fs::path& repo) {
  auto listed = lineage::runGit(repo, {"ls-files", "-c", "-z"});
  if (!listed.ok()) throw std::runtime_error("git ls-files: " + util::trim(listed.err));
  std::vector<std::string> out;
  for (std::size_t start = 0, i = 0; i < listed.out.size(); ++i) {
    if (listed.out[i] != '\0') continue;
    if (i > start) out.push_back(listed.out.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

}  // namespace

// Untracked files git ignores (an ignored folder once, as "dir/"), tree-relative.
std::vector<std::string> ignoredFiles(const fs::path& repo) {
  auto listed = lineage::runGit(repo, {"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"});
  if (!listed.ok()) throw std::runtime_error("git ls-files --ignored: " + util::trim(listed.err));
  std::vector<std::string> out;
  for (const auto& entry : util::split(listed.out, '\0')) {
    if (!entry.empty()) out.push_back(entry);
  }
  return out;
}

std::string clearPythonShadows(const OpenCampaign& session, int* cachesRemoved) {
  const PythonShadows found = findPythonShadows(session.repo, trackedFiles(session.repo), ignoredFiles(session.repo));
  int removed = 0;
  for (const auto& cache : found.caches) {
    std::error_code ec;
    if (fs::remove(session.repo / cache, ec)) ++removed;
  }
  if (cachesRemoved) *cachesRemoved = removed;
  std::vector<std::string> why;
  if (!found.shadowing.empty()) {
    why.push_back("Python would import " + util::join(found.shadowing, ", ") +
                  " in place of the tracked source beside it (an untracked package directory or extension module)");
  }
  if (!found.hiddenModules.empty()) {
    why.push_back("Python would import " + util::join(found.hiddenModules, ", ") +
                  " before any installed module of that name, and git ignores them, so no diff shows them");
  }
  if (why.empty()) return {};
  return util::join(why, "; ") + "; kopt measures and commits the tracked sources only";
}

std::optional<ToolFailure> pythonShadowFailure(const OpenCampaign& session, const std::string& tool, int* cachesRemoved) {
  std::string why;
  try {
    why = clearPythonShadows(session, cachesRemoved);
  } catch (const std::exception& e) {
    return toolFailure(tool + " could not list the repository's tracked files: " + std::string(e.what()));
  }
  if (why.empty()) return std::nullopt;
  return toolFailure(why, "", "remove those files (or track them in git) and call " + tool + " again");
}

std::map<std::string, std::string> nonKernelFileHashes(const OpenCampaign& session) {
  std::map<std::string, std::string> out;
  for (const std::string& f : trackedFiles(session.repo)) {
    if (util::startsWith(f, ".kopt/") || inAnyScope(f, session.manifest.kernelSource)) continue;
    std::error_code ec;
    const fs::path p = session.repo / f;
    std::string digest = "<missing>";
    if (fs::is_symlink(p, ec)) {
      digest = "link:" + fs::read_symlink(p, ec).string();
    } else if (fs::is_regular_file(p, ec)) {
      try {
        digest = util::sha256FileHex(p);
      } catch (const std::exception&) {
        digest = "<unreadable>";
      }
    }
    out[f] = digest;
  }
  return out;
}

// "<path>\0<digest>\n" per entry, in path order.
std::string nonKernelFingerprint(const std::map<std::string, std::string>& hashes) {
  util::Sha256 h;
  for (const auto& [path, digest] : hashes) {
    h.update(path);
    h.update(std::string_view("\0", 1));
    h.update(digest);
    h.update(std::string_view("\n", 1));
  }
  return h.finishHex();
}

std::string worktreeContentFingerprint(const fs::path& dir, const std::vector<std::string>& excluded) {
  std::vector<std::pair<std::string, std::string>> entries;  // relative path, "F<sha>" or "L<target>"
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(dir);
    const std::string relText = rel.generic_string();
    const bool skip = (!rel.empty() && *rel.begin() == ".git") ||  // a worktree's .git is a file; git's own data
                      std::any_of(excluded.begin(), excluded.end(), [&](const std::string& x) { return relText == x; });
    if (skip) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec)) {
      entries.emplace_back(rel.generic_string(), "L" + fs::read_symlink(it->path(), ec).string());
    } else if (it->is_regular_file(ec)) {
      std::string digest;
      try {
        digest = util::sha256FileHex(it->path());
      } catch (const std::exception&) {
        digest = "<unreadable>";
      }
      entries.emplace_back(rel.generic_string(), "F" + digest);
    }
  }
  // Sorted by path, as the map nonKernelFingerprint hashes: the same text for the same tree.
  return nonKernelFingerprint(std::map<std::string, std::string>(entries.begin(), entries.end()));
}

std::string candidateContentFingerprint(const OpenCampaign& session) {
  std::vector<std::string> excluded{".kopt"};
  std::error_code ec;
  const fs::path campaign = fs::weakly_canonical(session.paths.root, ec).lexically_relative(fs::weakly_canonical(session.repo, ec));
  if (!campaign.empty() && *campaign.begin() != "..") excluded.push_back(campaign.generic_string());
  return worktreeContentFingerprint(session.repo, excluded);
}

}  // namespace kopt::campaign::detail
