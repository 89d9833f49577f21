// Referee hole 2, Python's side (docs/integrity.md): a bytecode cache planted beside a tracked
// module of the harness, whose header matches the source, is what Python runs. kopt removes the
// caches of tracked sources before it runs anything in the candidate's tree, and refuses files
// that Python would import in place of a tracked source.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"

namespace kopt::campaign {
namespace {

namespace fs = std::filesystem;
using testing::FakeWorkspace;
using testing::readText;
using testing::sh;
using testing::writeText;

// The fake bench reads a speed factor from a tracked module of the harness, benchlib.py (1.0).
void addBenchModule(FakeWorkspace& ws) {
  writeText(ws.repo / "benchlib.py", "SPEED_FACTOR = 1.0  # what the fake bench multiplies its speed by\n");
  const std::string bench = readText(ws.repo / "bench.py");
  const std::string anchor = "cfg = config()\n";
  const auto at = bench.find(anchor);
  REQUIRE(at != std::string::npos);
  writeText(ws.repo / "bench.py",
            bench.substr(0, at + anchor.size()) +
                "cfg[\"speed\"] = str(float(cfg.get(\"speed\", \"100\")) * __import__(\"benchlib\").SPEED_FACTOR)\n" +
                bench.substr(at + anchor.size()));
  // Ignored, as in most Python repositories: git status does not show a planted cache.
  writeText(ws.repo / ".gitignore", readText(ws.repo / ".gitignore") + "__pycache__/\n");
  REQUIRE(sh("cd '" + ws.repo.string() + "' && git add -A && git -c user.name=t -c user.email=t@example.com commit -q -m benchlib") == 0);
}

// The attack: a cache of benchlib with SPEED_FACTOR = 1.2, its header naming the real source's
// size and mtime (compiled from a same-size copy with the source's mtime). Returns its path.
fs::path plantCache(FakeWorkspace& ws) {
  const std::string script =
      "import importlib.util, os, py_compile, shutil, tempfile\n"
      "src = 'benchlib.py'\n"
      "st = os.stat(src)\n"
      "fake = 'SPEED_FACTOR = 1.2\\n'\n"
      "fake = fake[:-1].ljust(st.st_size - 1) + '\\n'\n"
      "d = tempfile.mkdtemp()\n"
      "p = os.path.join(d, src)\n"
      "open(p, 'w').write(fake)\n"
      "os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))\n"
      "target = importlib.util.cache_from_source(src)\n"
      "os.makedirs(os.path.dirname(target), exist_ok=True)\n"
      "py_compile.compile(p, cfile=target, doraise=True)\n"
      "shutil.rmtree(d)\n"
      "print(target)\n";
  writeText(ws.root / "plant.py", script);
  const std::string out = (ws.root / "plant.out").string();
  REQUIRE(sh("cd '" + ws.repo.string() + "' && python3 '" + (ws.root / "plant.py").string() + "' > '" + out + "'") == 0);
  const fs::path cache = ws.repo / testing::readText(out).substr(0, readText(out).find('\n'));
  // The plant works: Python in the tree imports the fake.
  REQUIRE(sh("cd '" + ws.repo.string() + "' && python3 -c 'import benchlib, sys; sys.exit(0 if benchlib.SPEED_FACTOR == 1.2 else 1)'") == 0);
  return cache;
}

TEST_CASE("a bytecode cache planted for a harness module is removed before validate_round measures") {
  FakeWorkspace ws;
  addBenchModule(ws);
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  auto h = testing::speedKnobHypothesis(dir);
  h.hypothesis.configOnly = true;
  REQUIRE(engine.beginRound(h).ok());
  REQUIRE(engine.rebuildKernel({dir}, {}).ok());
  REQUIRE(engine.runTests({dir}, {}).ok());
  const fs::path cache = plantCache(ws);
  auto v = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(v.ok(), v.errorText());
  // Unchanged kernel, unchanged harness: nothing to accept. With the cache it read 1.2x and was accepted.
  CHECK(v.value().decision == "ROLLBACK");
  CHECK_FALSE(fs::exists(cache));
  bool said = false;
  for (const auto& c : v.value().checks) said = said || c.find("1 bytecode cache(s) removed") != std::string::npos;
  CHECK(said);
}

TEST_CASE("an untracked extension module or package in place of a tracked source is refused") {
  FakeWorkspace ws;
  addBenchModule(ws);
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(testing::speedKnobHypothesis(dir)).ok());
  writeText(ws.repo / "benchlib" / "__init__.py", "SPEED_FACTOR = 100.0\n");
  auto built = engine.rebuildKernel({dir}, {});
  REQUIRE_FALSE(built.ok());
  CHECK(built.errorText().find("benchlib/") != std::string::npos);
  CHECK(built.errorText().find("in place of the tracked source") != std::string::npos);
  fs::remove_all(ws.repo / "benchlib");
  writeText(ws.repo / "benchlib.cpython-311-x86_64-linux-gnu.so", "not really an ELF file\n");
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_FALSE(validated.ok());
  CHECK(validated.errorText().find("benchlib.cpython-311-x86_64-linux-gnu.so") != std::string::npos);
  fs::remove(ws.repo / "benchlib.cpython-311-x86_64-linux-gnu.so");
  CHECK(engine.rebuildKernel({dir}, {}).ok());
}

TEST_CASE("an ignored module where Python looks first is refused: it would shadow an installed one unseen") {
  FakeWorkspace ws;
  addBenchModule(ws);
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(testing::speedKnobHypothesis(dir)).ok());
  // json.py beside bench.py is what `import json` finds first; excluded locally, git status is clean.
  writeText(ws.repo / "json.py", "raise SystemExit('not the standard library')\n");
  writeText(ws.repo / ".git" / "info" / "exclude", readText(ws.repo / ".git" / "info" / "exclude") + "json.py\n");
  auto built = engine.rebuildKernel({dir}, {});
  REQUIRE_FALSE(built.ok());
  CHECK(built.errorText().find("json.py before any installed module of that name") != std::string::npos);
  fs::remove(ws.repo / "json.py");
  CHECK(engine.rebuildKernel({dir}, {}).ok());
}

}  // namespace
}  // namespace kopt::campaign
