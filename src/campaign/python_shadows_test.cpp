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
  const std::vector<std::string> tracked{"harness/python/quick_test_bench.py", "kernels/triton/matmul.py", "kernels/bench.py",
                                         "lib/pkg/__init__.py", "lib/pkg/core.py", "lib/pkg.py", "README.md"};
  for (const auto& f : tracked) t.write(f);
  t.write("harness/python/__pycache__/quick_test_bench.cpython-312.pyc");  // a cache: removed
  t.write("harness/python/__pycache__/quick_test_bench.cpython-312.opt-1.pyc");
  t.write("harness/python/__pycache__/other.cpython-312.pyc");             // not a tracked source's
  t.write("kernels/triton/matmul.cpython-312-x86_64-linux-gnu.so");   // imported before matmul.py
  t.write("kernels/bench/__init__.py");                               // a package before bench.py
  t.write("kernels/triton/matmul_helper.py");                         // another module: no shadow
  t.write("kernels/triton/notes/readme.txt");                         // a directory without __init__
  const PythonShadows s = findPythonShadows(t.root, tracked);
  CHECK(s.caches == std::vector<std::string>{"harness/python/__pycache__/quick_test_bench.cpython-312.opt-1.pyc",
                                             "harness/python/__pycache__/quick_test_bench.cpython-312.pyc"});
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

TEST_CASE("an ignored module where Python looks first is found; elsewhere, or not a module, it is not") {
  Tree t;
  const std::vector<std::string> tracked{"kernels/softmax.py", "kopt/quick_test_bench.py", "lib/pkg/__init__.py",
                                         "lib/pkg/core.py", ".gitignore"};
  for (const auto& f : tracked) t.write(f);
  t.write("triton.py");                       // the root: kopt's harness puts it first on sys.path
  t.write("kernels/torch/__init__.py");       // a package beside a tracked kernel file
  t.write("kopt/numpy.cpython-312-x86_64-linux-gnu.so");
  t.write("kernels/helper.pyc");              // sourceless bytecode imports too
  t.write("lib/pkg/_version.py");             // inside a package: imported as pkg._version only
  t.write("build/libk.so");                   // an ignored build folder: not a package
  t.write("kernels/notes.txt");
  t.write("kernels/__pycache__/softmax.cpython-312.pyc");
  const std::vector<std::string> ignored{"triton.py", "kernels/torch/", "kopt/numpy.cpython-312-x86_64-linux-gnu.so",
                                         "kernels/helper.pyc", "lib/pkg/_version.py", "build/", "kernels/notes.txt",
                                         "kernels/__pycache__/"};
  const PythonShadows s = findPythonShadows(t.root, tracked, ignored);
  CHECK(s.hiddenModules == std::vector<std::string>{"kernels/helper.pyc", "kernels/torch/",
                                                    "kopt/numpy.cpython-312-x86_64-linux-gnu.so", "triton.py"});
  CHECK(findPythonShadows(t.root, tracked).hiddenModules.empty());  // not ignored: the diff shows them
}

}  // namespace
}  // namespace kopt::campaign
