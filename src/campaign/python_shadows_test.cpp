#include "campaign/python_shadows.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

namespace kopt::campaign {
namespace {

namespace fs = std::filesystem;

struct Tree {
  fs::path root;
  Tree() {
    char tmpl[] = "/tmp/kopt-pyshadow-XXXXXX";
    root = fs::path(mkdtemp(tmpl));
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void write(const std::string& rel) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << "x\n";
  }
};

TEST_CASE("a tracked source's bytecode caches are found, and untracked files Python prefers to it") {
  Tree t;
  const std::vector<std::string> tracked{"tools/quick_test_bench.py", "kernels/triton/matmul.py", "kernels/bench.py",
                                         "lib/pkg/__init__.py", "lib/pkg/core.py", "lib/pkg.py", "README.md"};
  for (const auto& f : tracked) t.write(f);
  t.write("tools/__pycache__/quick_test_bench.cpython-312.pyc");      // a cache: removed
  t.write("tools/__pycache__/quick_test_bench.cpython-312.opt-1.pyc");
  t.write("tools/__pycache__/other.cpython-312.pyc");                 // not a tracked source's
  t.write("kernels/triton/matmul.cpython-312-x86_64-linux-gnu.so");   // imported before matmul.py
  t.write("kernels/bench/__init__.py");                               // a package before bench.py
  t.write("kernels/triton/matmul_helper.py");                         // another module: no shadow
  t.write("kernels/triton/notes/readme.txt");                         // a directory without __init__
  const PythonShadows s = findPythonShadows(t.root, tracked);
  CHECK(s.caches == std::vector<std::string>{"tools/__pycache__/quick_test_bench.cpython-312.opt-1.pyc",
                                             "tools/__pycache__/quick_test_bench.cpython-312.pyc"});
  CHECK(s.shadowing == std::vector<std::string>{"kernels/bench/", "kernels/triton/matmul.cpython-312-x86_64-linux-gnu.so"});
}

TEST_CASE("a package the repository tracks is its layout, not a shadow; a clean tree has nothing") {
  Tree t;
  const std::vector<std::string> tracked{"lib/pkg/__init__.py", "lib/pkg.py", "lib/mod.py"};
  for (const auto& f : tracked) t.write(f);
  const PythonShadows s = findPythonShadows(t.root, tracked);
  CHECK(s.caches.empty());
  CHECK(s.shadowing.empty());
  t.write("lib/__pycache__/__init__.cpython-311.pyc");  // not lib/pkg's cache: lib has no tracked __init__
  t.write("lib/pkg/__pycache__/__init__.cpython-311.pyc");
  CHECK(findPythonShadows(t.root, tracked).caches == std::vector<std::string>{"lib/pkg/__pycache__/__init__.cpython-311.pyc"});
}

}  // namespace
}  // namespace kopt::campaign
