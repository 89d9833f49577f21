#pragma once
// Which of a repository's Python files a Python file imports, as far as reading the source can
// tell (no interpreter runs). kopt init uses it on the kernel file it is given: a kernel package
// keeps its hooks (make_inputs, forward, ...) in one file and the Triton kernels in the modules
// that file imports, and those modules are what a round changes. Text only: the files are read
// through a callback, so the resolution is tested on in-memory trees.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::cli {

// One import statement: `import a.b` (level 0, module "a.b"), `from ..pkg.mod import x, y`
// (level 2, module "pkg.mod", names x, y), `from . import k` (level 1, module "", names k).
struct PythonImport {
  int level = 0;                   // leading dots of a relative import; 0 = absolute
  std::string module;              // dotted, possibly empty for `from . import x`
  std::vector<std::string> names;  // what a `from` import takes (a submodule or an attribute); "*" kept
};

// Every import statement of the source, nested ones (inside a function or a try) included, with
// parenthesised and backslash-continued lists joined; docstrings and comments are skipped.
std::vector<PythonImport> parsePythonImports(std::string_view source);

// The text of a repository-relative file, or nullopt where there is no such regular file.
using RepoFileReader = std::function<std::optional<std::string>(const std::string& path)>;

// The repository files `file` (repository-relative) imports, directly or through the files it
// imports, in the order they are found, `file` itself excluded: a module resolves to `a/b.py` or
// `a/b/__init__.py`, its parent packages' `__init__.py` files count (importing a.b runs them),
// and a `from` import's names are tried as submodules. Absolute imports are looked up the way
// kopt's harness sets sys.path: the kernel file's own folder first, then the repository root.
// Imports that resolve outside the repository (torch, triton) are not followed. At most `limit`
// files are read.
std::vector<std::string> importedRepoFiles(const std::string& file, const RepoFileReader& read, std::size_t limit = 200);

}  // namespace kopt::cli
