#include "campaign/state_store.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "util/atomic_file.h"

using namespace kopt::campaign;
namespace fs = std::filesystem;

namespace {
fs::path tempDir(const char* tag) {
  auto d = fs::temp_directory_path() / (std::string("kopt_state_") + tag + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string errorOf(const std::variant<CampaignState, std::string>& r) {
  REQUIRE(std::holds_alternative<std::string>(r));
  return std::get<std::string>(r);
}
}  // namespace

TEST_CASE("state round-trips through state.json") {
  auto dir = tempDir("rt");
  StateStore store(dir / "state.json");
  CHECK_FALSE(store.exists());
  CampaignState s;
  s.phase = Phase::Optimize;
  s.confirmedBy = "elicitation:claude-code";
  s.lastRound = 4;
  s.openRound = OpenRound{4, "abc123", {"kernels/cpu/gemm.cpp"}, false};
  s.bestRound = 2;
  s.bestCommit = "def456";
  s.baselineCommit = "0aa";
  s.consecutiveRollbacks = 1;
  s.pending = PendingStep{4, "bench", "2026-04-12T09:30:05.123Z", PendingMeasurement{"r4-quick-1", {}, ""}, 16};
  s.frozen.addText("schema header", "label,Check");
  s.ledgerSeq = 17;
  store.save(s);
  CHECK(store.exists());
  auto loaded = store.load();
  REQUIRE(std::holds_alternative<CampaignState>(loaded));
  CHECK(std::get<CampaignState>(loaded) == s);
  auto j = nlohmann::json::parse(kopt::util::readFile(dir / "state.json"));
  CHECK(j["phase"] == "OPTIMIZE");
  CHECK(j["open_round"]["declared_files"][0] == "kernels/cpu/gemm.cpp");

  CampaignState fresh;
  store.save(fresh);
  CHECK(std::get<CampaignState>(store.load()) == fresh);
  fs::remove_all(dir);
}

TEST_CASE("loading a broken state.json gives an error naming the file and the field") {
  auto dir = tempDir("bad");
  StateStore store(dir / "state.json");
  CHECK(errorOf(store.load()).find("no state file") != std::string::npos);
  kopt::util::writeFileAtomic(store.path(), "{ truncated");
  CHECK(errorOf(store.load()).find("not valid JSON") != std::string::npos);

  auto j = toJson(CampaignState{});
  j["phase"] = "FLYING";
  kopt::util::writeFileAtomic(store.path(), j.dump());
  std::string err = errorOf(store.load());
  CHECK(err.find(store.path().string()) == 0);
  CHECK(err.find("field 'phase': 'FLYING' is not a phase") != std::string::npos);

  j = toJson(CampaignState{});
  j.erase("last_round");
  kopt::util::writeFileAtomic(store.path(), j.dump());
  CHECK(errorOf(store.load()).find("'last_round' is missing") != std::string::npos);

  j = toJson(CampaignState{});
  j["open_round"] = {{"number", 2}, {"lineage_head", "x"}, {"declared_files", "a.py"}, {"config_only", false}};
  kopt::util::writeFileAtomic(store.path(), j.dump());
  CHECK(errorOf(store.load()).find("open_round.declared_files") != std::string::npos);

  j = toJson(CampaignState{});
  j["version"] = 9;
  kopt::util::writeFileAtomic(store.path(), j.dump());
  CHECK(errorOf(store.load()).find("version") != std::string::npos);
  fs::remove_all(dir);
}
