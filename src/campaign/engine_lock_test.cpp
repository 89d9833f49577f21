// The campaign's one-writer lock lives outside the workspace (docs/integrity.md, class 6): an agent that
// deletes every lock file it can see in its workspace still cannot run a second validate_round
// while one is measuring.
#include <doctest/doctest.h>

#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "campaign/engine.h"
#include "campaign/engine_session.h"
#include "campaign/engine_test_support.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
namespace fs = std::filesystem;

}  // namespace

TEST_CASE("lock: the campaign's lock is under kopt's state directory, not in the workspace") {
  FakeWorkspace ws;
  const EngineOptions options = ws.options();
  const CampaignPaths paths(ws.repo / ".kopt/campaigns/c");
  const fs::path lock = detail::campaignLockPath(options, paths);
  CHECK(lock.parent_path() == options.ledgerKeyDir);
  CHECK(lock.extension() == ".lock");
  CHECK(lock.string().rfind(ws.repo.string(), 0) != 0);
  // Without a state directory it falls back to the campaign's own lock file.
  EngineOptions bare = options;
  bare.ledgerKeyDir.clear();
  // No state directory at all: HOME, XDG_STATE_HOME and KOPT_STATE_DIR unset, then restored.
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* name : {"HOME", "XDG_STATE_HOME", "KOPT_STATE_DIR"}) {
    const char* value = std::getenv(name);
    saved.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
    ::unsetenv(name);
  }
  CHECK(detail::campaignLockPath(bare, paths) == paths.lock);
  for (const auto& [name, value] : saved)
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
}

TEST_CASE("lock: deleting the lock files in the workspace does not let a second validate_round run") {
  FakeWorkspace ws;
  CampaignEngine* enginePtr = nullptr;
  std::string dir;
  std::future<Outcome<ValidateResult>> second;
  EngineOptions options = ws.options();
  const auto inject = options.faultInjection;
  options.faultInjection = [&](const std::string& point) {
    if (point == "validate:after-pairs" && !second.valid()) {
      // The hostile agent, while the first validation measures: unlink every *.lock it can reach
      // in the workspace, then ask for its own verdict (from another connection: a thread). With
      // a lock it could delete, the second call would run and both verdicts be recorded.
      for (const auto& e : fs::recursive_directory_iterator(ws.root / "repo"))
        if (e.path().extension() == ".lock") fs::remove(e.path());
      ValidateRequest v;
      v.campaignDir = dir;
      second = std::async(std::launch::async, [enginePtr, v] { return enginePtr->validateRound(v, {}); });
      // Let it reach the lock before this call goes on (it answers at once when refused).
      second.wait_for(std::chrono::seconds(30));
    }
    inject(point);
  };
  CampaignEngine engine(options);
  enginePtr = &engine;
  dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(testing::speedKnobHypothesis(dir)).ok());
  ws.setConfig("speed=130\n");
  REQUIRE(engine.rebuildKernel({dir}, {}).ok());
  REQUIRE(engine.runTests({dir}, {}).ok());
  ValidateRequest v;
  v.campaignDir = dir;
  auto first = engine.validateRound(v, {});
  REQUIRE_MESSAGE(first.ok(), first.errorText());
  REQUIRE(second.valid());
  const auto secondOutcome = second.get();
  REQUIRE(secondOutcome.refused());
  CHECK(testing::name(secondOutcome.refusal().code) == testing::name(RefusalCode::Busy));
  // One verdict in the ledger.
  const std::string ledger = testing::readText(fs::path(dir) / "ledger.jsonl");
  std::size_t verdicts = 0;
  for (std::size_t at = ledger.find("\"round_validated\""); at != std::string::npos;
       at = ledger.find("\"round_validated\"", at + 1))
    ++verdicts;
  CHECK(verdicts == 1);
}

}  // namespace kopt::campaign
