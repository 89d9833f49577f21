#include "campaign/settings_diff.h"

#include <doctest/doctest.h>

using namespace kopt::campaign;

namespace {

const std::string kConfig =
    "// knobs, one #define each\n"
    "#ifndef CFG_H\n"
    "#define CFG_H\n"
    "#define GEMM_TILE_M 64\n"
    "#define GEMM_TILE_N 64  // columns\n"
    "#define GEMM_UNROLL 1\n"
    "#endif\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("settings: one #define changed is one setting, two are two, named with both values") {
  const std::string one = replaced(kConfig, "GEMM_TILE_M 64", "GEMM_TILE_M 48");
  CHECK(countChangedSettings(kConfig, one, SettingSyntax::CFamily) == 1);
  const std::string two = replaced(one, "GEMM_TILE_N 64", "GEMM_TILE_N 20");
  const auto d = diffSettings(kConfig, two, SettingSyntax::CFamily);
  REQUIRE(d.counted.size() == 2);
  CHECK(d.counted[0].describe() == "GEMM_TILE_M 64 -> 48");
  CHECK(d.counted[1].describe() == "GEMM_TILE_N 64 -> 20");
  CHECK(d.otherLinesChanged == 0);
  CHECK(countChangedSettings(kConfig, kConfig, SettingSyntax::CFamily) == 0);
}

TEST_CASE("settings: comment-only and whitespace-only edits change nothing") {
  std::string t = replaced(kConfig, "// columns", "// columns of C, see README");
  t = replaced(t, "#define GEMM_UNROLL 1", "#define   GEMM_UNROLL\t1   ");
  t = replaced(t, "// knobs, one #define each\n", "/* knobs,\n   #define GEMM_TILE_M 8 in a comment */\n\n");
  const auto d = diffSettings(kConfig, t, SettingSyntax::CFamily);
  CHECK(d.counted.empty());
  CHECK(d.otherLinesChanged == 0);
}

TEST_CASE("settings: a new or removed knob counts in a config edit, not in a code edit") {
  const std::string added = kConfig + "#define GEMM_PACK_B 1\n";
  auto d = diffSettings(kConfig, added, SettingSyntax::CFamily);
  REQUIRE(d.counted.size() == 1);
  CHECK(d.counted[0].describe() == "GEMM_PACK_B added (= 1)");
  d = diffSettings(kConfig, replaced(kConfig, "#define GEMM_UNROLL 1\n", ""), SettingSyntax::CFamily);
  REQUIRE(d.counted.size() == 1);
  CHECK(d.counted[0].describe() == "GEMM_UNROLL removed (was 1)");

  // Code with its own parameters appended (the exploit suite's hostile variants): the new names
  // belong to the code, which build, tests and gate judge.
  const std::string kernel = "#include \"cfg.h\"\nvoid forward(float* c) {\n  int x = 0;\n  c[0] = x;\n}\n";
  const std::string hostile = replaced(kernel, "void forward(", "void honest_forward(") +
                              "#define REWRITE_MODE 1\n#define REWRITE_SPEEDUP 20.0\nvoid forward(float* c) {}\n";
  d = diffSettings(kernel, hostile, SettingSyntax::CFamily);
  CHECK(d.counted.empty());
  CHECK(d.otherLinesChanged > 0);
  // ...but a changed value of an existing setting counts even beside code edits.
  const std::string both = replaced(replaced(kConfig, "GEMM_TILE_M 64", "GEMM_TILE_M 48"), "GEMM_UNROLL 1", "GEMM_UNROLL 8") +
                           "static const int kUnused = 0;\n";
  CHECK(countChangedSettings(kConfig, both, SettingSyntax::CFamily) == 2);
}

TEST_CASE("settings: function-like macros and assignments in C++ code are not settings") {
  const std::string before = "#define SQ(x) ((x) * (x))\nconstexpr int kBlock = 32;\nvoid f() {\n  acc = 0;\n}\n";
  const std::string after = "#define SQ(x) ((x) + (x))\nconstexpr int kBlock = 64;\nvoid f() {\n  acc = 1;\n}\n";
  const auto d = diffSettings(before, after, SettingSyntax::CFamily);
  CHECK(d.counted.empty());
  CHECK(d.otherLinesChanged == 6);
}

TEST_CASE("settings: Python module constants, YAML and JSON keys") {
  const std::string py = "import triton\nNUM_WARPS = 4\nPLANTED = {}  # planted work\n\ndef f(x):\n    y = 2\n    return x\n";
  CHECK(countChangedSettings(py, replaced(py, "NUM_WARPS = 4", "NUM_WARPS = 8"), SettingSyntax::Python) == 1);
  CHECK(countChangedSettings(py, replaced(py, "# planted work", "# extra"), SettingSyntax::Python) == 0);
  // Indented assignments are code, not module settings.
  auto d = diffSettings(py, replaced(py, "y = 2", "y = 3"), SettingSyntax::Python);
  CHECK(d.counted.empty());
  CHECK(d.otherLinesChanged == 2);

  const std::string yaml = "gate:\n  pairs: 4\n  max_pairs: 6\nurl: http://x.invalid/a  # where\n";
  const std::string yaml2 = replaced(replaced(yaml, "pairs: 4", "pairs: 8"), "max_pairs: 6", "max_pairs: 12");
  d = diffSettings(yaml, yaml2, SettingSyntax::Yaml);
  REQUIRE(d.counted.size() == 2);
  CHECK(d.counted[0].describe() == "pairs 4 -> 8");
  CHECK(countChangedSettings("{\n  \"block\": 64,\n  \"warps\": 4\n}\n", "{\n  \"block\": 128,\n  \"warps\": 4\n}\n",
                             SettingSyntax::Json) == 1);
  CHECK(countChangedSettings("a = 1\nb = 2\n", "a = 1\nb = 3\n", SettingSyntax::KeyEquals) == 1);
}

TEST_CASE("settings: the syntax follows the file's extension") {
  CHECK(settingSyntaxFor("gemm_config.h") == SettingSyntax::CFamily);
  CHECK(settingSyntaxFor("kernels/triton/matmul.py") == SettingSyntax::Python);
  CHECK(settingSyntaxFor("conf/tune.YAML") == SettingSyntax::Yaml);
  CHECK(settingSyntaxFor("a/b.json") == SettingSyntax::Json);
  CHECK(settingSyntaxFor("pyproject.toml") == SettingSyntax::KeyEquals);
  CHECK(settingSyntaxFor("Makefile") == SettingSyntax::Any);
  // Unknown files take every form.
  CHECK(countChangedSettings("#define A 1\nB = 2\nc: 3\n", "#define A 2\nB = 3\nc: 4\n") == 3);
}

TEST_CASE("settings: the edge of each form (list markers, quoted keys, comparisons, directives)") {
  // A YAML list item's key is a setting; a dash glued to the key is not a marker.
  CHECK(countChangedSettings("- block: 64\n", "- block: 128\n", SettingSyntax::Yaml) == 1);
  auto d = diffSettings("-block: 64\n", "-block: 128\n", SettingSyntax::Yaml);
  CHECK(d.counted.empty());
  CHECK(d.otherLinesChanged == 2);
  // YAML wants a blank after the colon; a quoted key does not.
  CHECK(diffSettings("url:x\n", "url:y\n", SettingSyntax::Yaml).counted.empty());
  CHECK(countChangedSettings("'warps':4\n", "'warps':8\n", SettingSyntax::Yaml) == 1);
  CHECK(diffSettings("\"\": 1\n", "\"\": 2\n", SettingSyntax::Json).counted.empty());
  // A comparison is code; trailing separators are not part of the value.
  CHECK(diffSettings("A == 1\n", "A == 2\n", SettingSyntax::KeyEquals).counted.empty());
  CHECK(countChangedSettings("a = 1 ;\n", "a = 1,\n", SettingSyntax::KeyEquals) == 0);
  // A directive's own '#' is not a YAML-style comment: `#  define` after blanks still counts.
  CHECK(countChangedSettings("#  define TILE 4\n", "#  define TILE 8\n", SettingSyntax::Any) == 1);
  CHECK(countChangedSettings("#define TILE 4 # four\n", "#define TILE 4 # 4\n", SettingSyntax::Any) == 0);
  CHECK(diffSettings("#definex TILE 4\n", "#definex TILE 8\n", SettingSyntax::CFamily).counted.empty());
}

TEST_CASE("settings: a megabyte line (a generated header's blob) is read, not a stack overflow") {
  // std::regex recursed once per character: 100 KB crashed the server with SIGSEGV.
  const std::string blob(1 << 20, '7');
  const auto d = diffSettings("#define BLOB 1\n", "#define BLOB " + blob + "\n", SettingSyntax::CFamily);
  REQUIRE(d.counted.size() == 1);
  CHECK(d.counted[0].after->size() == blob.size());
  CHECK(countChangedSettings("key: 1\n", "key: " + blob + "\n", SettingSyntax::Yaml) == 1);
  const std::string hashes = "#define TILE 4" + std::string(1 << 18, ' ') + std::string(1 << 18, '#') + "\n";
  CHECK(countChangedSettings("#define TILE 4\n", hashes, SettingSyntax::Any) == 0);
}
