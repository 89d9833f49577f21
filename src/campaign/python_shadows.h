#pragma once
// What Python imports instead of a tree's tracked sources (docs/integrity.md, referee hole 2).
// For a tracked `X.py`, Python's path finder prefers a package directory `X/` and an extension
// module `X.<tag>.so` beside it, and reads `__pycache__/X.<tag>.pyc` instead of the source when
// the cache's header names the source's size and modification time, which whoever writes the
// cache can make true. None of them is a tracked file, so no hash of the sources sees them: a
// planted cache of a frozen harness module would run a harness kopt never hashed.
#include <filesystem>
#include <string>
#include <vector>

namespace kopt::campaign {

struct PythonShadows {
  // Bytecode caches of tracked sources (tree-relative): harmless to remove, Python recompiles.
  std::vector<std::string> caches;
  // Untracked files or directories that Python would import in place of a tracked source.
  std::vector<std::string> shadowing;
  // Modules git ignores (so no diff shows them) in a folder Python searches first: the tree's root
  // and each folder of tracked scripts that is not a package (harnesses and kernel files run from
  // there, and kopt's harness puts the root first on sys.path). One named like an installed module
  // (`triton.py`, `torch/`) is imported instead of it, and nothing kopt hashes or commits shows it.
  std::vector<std::string> hiddenModules;
};

// `tracked`: the tree's tracked files, tree-relative (`git ls-files`); `ignored`: its untracked
// files git ignores (`git ls-files --others --ignored --exclude-standard --directory`: an ignored
// folder once, with a trailing '/'). Sorted results.
PythonShadows findPythonShadows(const std::filesystem::path& tree, const std::vector<std::string>& tracked,
                                const std::vector<std::string>& ignored = {});

}  // namespace kopt::campaign
