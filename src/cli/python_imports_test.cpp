#include "cli/python_imports.h"

#include <doctest/doctest.h>

#include <map>

namespace kopt::cli {

namespace {

RepoFileReader tree(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("import statements: absolute, relative, aliased, parenthesised, nested; not in docstrings or comments") {
  const auto imports = parsePythonImports(R"(""" A docstring that says
import not_a_module
"""
import torch, triton.language as tl  # import also_not
from .kernels.rms import (
    rms_fwd,
    rms_bwd as bwd,
)
from .. import common
from pkg.sub import \
    thing
def lazy():
    import late.module
x = "import quoted"; import after_semicolon
)");
  REQUIRE(imports.size() == 7);
  CHECK(imports[0].module == "torch");
  CHECK(imports[1].module == "triton.language");
  CHECK(imports[2].level == 1);
  CHECK(imports[2].module == "kernels.rms");
  CHECK(imports[2].names == std::vector<std::string>{"rms_fwd", "rms_bwd"});
  CHECK(imports[3].level == 2);
  CHECK(imports[3].module.empty());
  CHECK(imports[3].names == std::vector<std::string>{"common"});
  CHECK(imports[4].module == "pkg.sub");
  CHECK(imports[4].names == std::vector<std::string>{"thing"});
  CHECK(imports[5].module == "late.module");
  CHECK(imports[6].module == "after_semicolon");
}

TEST_CASE("a hooks file's imports are followed into the repository's package, and no further") {
  // The layout of a third-party kernel package: hooks at the root, the package's __init__
  // re-exports its kernels through relative imports, and the kernels import a shared helper.
  const auto read = tree({
      {"bench_hooks.py", "import torch\nfrom rmsnorm import rms_norm\nimport rmsnorm.utils\n"},
      {"rmsnorm/__init__.py", "from .forward import rms_norm\nfrom .backward import *\n"},
      {"rmsnorm/forward.py", "import triton\nfrom . import _common\n@triton.jit\ndef k():\n    pass\n"},
      {"rmsnorm/backward.py", "from ._common import block\n"},
      {"rmsnorm/_common.py", "import triton\n"},
      {"rmsnorm/utils.py", "from ..outside import x\n"},  // above the top package: not followed
      {"outside.py", "import triton\n"},
      {"unrelated.py", "import triton\n"},
  });
  CHECK(importedRepoFiles("bench_hooks.py", read) ==
        std::vector<std::string>{"rmsnorm/__init__.py", "rmsnorm/utils.py", "rmsnorm/forward.py", "rmsnorm/backward.py",
                                 "rmsnorm/_common.py"});
}

TEST_CASE("absolute imports look in the kernel file's folder first, then the repository root; a cycle ends") {
  const auto read = tree({
      {"bench/hooks.py", "import local_kernel\nimport shared.kern\n"},
      {"bench/local_kernel.py", "import bench.hooks\n"},  // back to the start: not listed, not looped
      {"local_kernel.py", "# the root's file of the same name loses to the folder's\n"},
      {"shared/kern.py", "from shared import kern\n"},
      {"bench/__init__.py", ""},
  });
  CHECK(importedRepoFiles("bench/hooks.py", read) ==
        std::vector<std::string>{"bench/local_kernel.py", "shared/kern.py", "bench/__init__.py"});
  CHECK(importedRepoFiles("bench/hooks.py", read, 1) == std::vector<std::string>{"bench/local_kernel.py"});
  CHECK(importedRepoFiles("missing.py", read).empty());
}

}  // namespace kopt::cli
