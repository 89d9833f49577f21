// BASELINE's quick-command check on the fake kernel's bench worker: a quick command that is the
// benchmark's own (every shipped manifest's) is not started again, since the A/A's sessions ran
// that very command over every shape; a quick command of its own is run on the representative
// shapes.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"

namespace kopt::campaign {
namespace {

namespace fs = std::filesystem;
using testing::FakeWorkspace;
using testing::readText;

// The fake campaign on two bench workers with `quick` as its quick_command, run to BASELINE.
std::string baselineWithQuickCommand(FakeWorkspace& ws, CampaignEngine& engine, const std::string& quick) {
  const std::string dir = testing::workerCampaignAtBaselineCall(ws, engine, "speed=100\n", [&](std::string& manifest) {
    const std::string shipped = "quick_command: python3 bench.py\n";
    REQUIRE(manifest.find(shipped) != std::string::npos);
    manifest.replace(manifest.find(shipped), shipped.size(), "quick_command: " + quick + "\n");
  });
  auto baseline = engine.runBaseline(dir, {});
  REQUIRE_MESSAGE(baseline.ok(), baseline.errorText());
  return dir;
}

bool anyRunStartsWith(const fs::path& runs, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(runs)) names.push_back(entry.path().filename().string());
  return testing::anyStartsWith(names, prefix);
}

}  // namespace

TEST_CASE("quick check: the benchmark's own command is not started again; the A/A's first log is the quick baseline") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const fs::path dir = baselineWithQuickCommand(ws, engine, "python3 bench.py");
  const fs::path runs = dir / "rounds" / "round-1" / "artifacts" / "runs";
  CHECK(anyRunStartsWith(runs, "r1-aa-1-s0-"));
  CHECK_FALSE(anyRunStartsWith(runs, "r1-quick-"));
  // The fake worker writes no stderr: the copy is what is checked, not its contents.
  REQUIRE(fs::exists(runs / "r1-aa-1-s0-candidate.log"));
  CHECK(fs::exists(dir / "quick_baseline.log"));
  CHECK(readText(dir / "quick_baseline.log") == readText(runs / "r1-aa-1-s0-candidate.log"));
}

TEST_CASE("quick check: a quick command of its own runs on the representative shapes") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const fs::path dir = baselineWithQuickCommand(ws, engine, "python3 ./bench.py");
  const fs::path runs = dir / "rounds" / "round-1" / "artifacts" / "runs";
  REQUIRE(fs::exists(runs / "r1-quick-1-s3-candidate.log"));  // after the A/A's sessions 0-2
  CHECK(fs::exists(dir / "quick_baseline.log"));
  CHECK(readText(dir / "quick_baseline.log") == readText(runs / "r1-quick-1-s3-candidate.log"));
}

}  // namespace kopt::campaign
