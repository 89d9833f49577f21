// BASELINE's quick-command check on the fake kernel's bench worker: a quick command that is the
// benchmark's own (every shipped manifest's) is not started again, since the A/A's sessions ran
// that very command over every shape; a quick command of its own is run on the representative
// shapes.
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

// The fake campaign on two bench workers with `quick` as its quick_command, run to BASELINE.
std::string baselineWithQuickCommand(FakeWorkspace& ws, CampaignEngine& engine, const std::string& quick) {
  std::string manifest = testing::fakeKernelFile("manifest.yaml");
  const std::string shipped = "quick_command: python3 bench.py\n";
  REQUIRE(manifest.find(shipped) != std::string::npos);
  manifest.replace(manifest.find(shipped), shipped.size(), "quick_command: " + quick + "\n");
  testing::writeText(ws.repo / "manifest.yaml", manifest + "bench:\n  protocol: worker\n  batch_ms: 4\n");
  ws.setConfig("speed=100\n");
  ws.git("-c user.name=test -c user.email=test@example.com commit -qam 'worker protocol'");
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  return dir;
}

bool anyRunStartsWith(const fs::path& runs, const std::string& prefix) {
  for (const auto& entry : fs::directory_iterator(runs))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
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
