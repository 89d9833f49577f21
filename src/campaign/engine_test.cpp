// The engine end to end on the fake kernel (engine_test_support.h): the vertical slice, accept /
// rollback mechanics, git lineage and records. Refusals: engine_refusal_test.cpp; crashes:
// engine_recovery_test.cpp.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"
#include "campaign/ledger.h"
#include "campaign/records/record_types.h"
#include "util/text.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
using testing::readText;
namespace fs = std::filesystem;

// engine_test's round: a bigger expected gain, and a change text the commit subject shows.
BeginRoundRequest hypothesis(const std::string& dir, std::vector<std::string> files = {"kernel/config.ini"}) {
  BeginRoundRequest b = testing::speedKnobHypothesis(dir, std::move(files));
  b.hypothesis.statement = "I expect Forward TFLOPS to improve because the inner loop gets faster";
  b.hypothesis.change = "raise the speed knob";
  b.hypothesis.expected.sizePct = 20;
  return b;
}

AcceptOrRevertRequest prose(const std::string& dir) {
  AcceptOrRevertRequest a;
  a.campaignDir = dir;
  a.attribution = "the knob";
  a.nextDirection = "tile sizes";
  a.rootCause = "the change slowed the kernel";
  a.lesson = "measure first";
  return a;
}

}  // namespace

TEST_CASE("engine: the vertical slice accepts a real speedup and commits it with the contract's message") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK(testing::name(status.value().phase) == testing::name(Phase::Analyze));
  CHECK(status.value().lastRound == 1);
  CHECK(status.value().bestRound == 1);
  CHECK(ws.git("rev-parse --abbrev-ref HEAD").find("optimize/fake_gemm_cpu_cpu_20260412") == 0);
  CHECK(fs::exists(fs::path(dir) / "rounds/round-1/summary.md"));
  CHECK(fs::exists(fs::path(dir) / "rounds/round-1/kernel_snapshot/kernel/config.ini"));
  CHECK(fs::exists(fs::path(dir) / "rounds/round-1/artifacts/benchmark.csv"));

  auto begun = engine.beginRound(hypothesis(dir));
  REQUIRE_MESSAGE(begun.ok(), begun.errorText());
  CHECK(begun.value().round == 2);
  ws.setConfig("speed=130\n");
  auto built = engine.rebuildKernel({dir}, {});
  REQUIRE_MESSAGE(built.ok(), built.errorText());
  CHECK(built.value().ok);
  auto tested = engine.runTests({dir}, {});
  REQUIRE_MESSAGE(tested.ok(), tested.errorText());
  CHECK(tested.value().ok);
  BenchRequest bench;
  bench.campaignDir = dir;
  auto measured = engine.runQuickBench(bench, {});
  REQUIRE_MESSAGE(measured.ok(), measured.errorText());
  CHECK(measured.value().pairs == 6);
  REQUIRE(measured.value().aggregate.ratio);
  CHECK(*measured.value().aggregate.ratio > 1.2);
  ValidateRequest v;
  v.campaignDir = dir;
  auto validated = engine.validateRound(v, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().decision == "ACCEPT");
  for (const auto& s : validated.value().shapes) CHECK(s.verdict == "IMPROVED");

  auto decided = engine.acceptOrRevert(prose(dir), {});
  REQUIRE_MESSAGE(decided.ok(), decided.errorText());
  CHECK(decided.value().status == "ACCEPTED");
  const std::string log = ws.git("log -1 --format=%B");
  CHECK(log.find("[optimize] fake_gemm CPU round-2: raise the speed knob") == 0);
  CHECK(log.find("Hypothesis: I expect Forward TFLOPS") != std::string::npos);
  CHECK(log.find("Details: ") != std::string::npos);
  CHECK(ws.git("status --porcelain kernel").empty());
  CHECK(util::trim(ws.git("rev-parse HEAD")) == decided.value().commit);
  // Records of the round.
  const fs::path round = fs::path(dir) / "rounds/round-2";
  CHECK(readText(round / "summary.md").find("ACCEPTED") != std::string::npos);
  CHECK(fs::exists(round / "decision.json"));
  CHECK(fs::exists(round / "hypothesis.json"));
  CHECK(readText(round / "kernel_snapshot/kernel/config.ini") == "speed=130\n");
  const std::string trend = readText(fs::path(dir) / "logs/performance_trend.md");
  CHECK(trend.find("BASELINE") != std::string::npos);
  CHECK(trend.find("ACCEPTED") != std::string::npos);
  CHECK(readText(fs::path(dir) / "logs/optimize.md").find("round-2") != std::string::npos);
  // The campaign dir never enters the user's history.
  CHECK(ws.git("ls-files").find(".kopt") == std::string::npos);
  CHECK(Ledger(fs::path(dir) / "ledger.jsonl").verify().ok());
  auto after = engine.campaignStatus(dir);
  REQUIRE(after.ok());
  CHECK(testing::name(after.value().phase) == testing::name(Phase::Analyze));
  CHECK(after.value().bestRound == 2);
  CHECK(after.value().acceptedRounds == 1);
}

TEST_CASE("engine: a regressing round is rolled back and the last accepted tree restored exactly") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir, {"kernel"})).ok());
  ws.setConfig("speed=85\n");
  testing::writeText(ws.repo / "kernel/new_helper.txt", "an untracked file the round added\n");
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().decision == "ROLLBACK");
  bool regressed = false;
  for (const auto& s : validated.value().shapes) regressed |= s.verdict == "REGRESSED";
  CHECK(regressed);
  auto decided = engine.acceptOrRevert(prose(dir), {});
  REQUIRE_MESSAGE(decided.ok(), decided.errorText());
  CHECK(decided.value().status == "ROLLED BACK");
  CHECK(readText(ws.repo / "kernel/config.ini") == "speed=100\n");
  CHECK_FALSE(fs::exists(ws.repo / "kernel/new_helper.txt"));
  CHECK(ws.git("status --porcelain kernel").empty());
  CHECK(readText(fs::path(dir) / "rounds/round-2/kernel_snapshot/kernel/config.ini") == "speed=85\n");
  CHECK(readText(fs::path(dir) / "rounds/round-2/summary.md").find("Rollback") != std::string::npos);
  auto ineffective = engine.listIneffectiveDirections(dir);
  REQUIRE(ineffective.ok());
  REQUIRE(ineffective.value().items.size() == 1);
  CHECK(ineffective.value().items[0].round == 2);
  CHECK(ineffective.value().items[0].direction == "raise the speed knob");
  // Round numbers only grow: the next round is 3.
  auto next = engine.beginRound(hypothesis(dir));
  REQUIRE(next.ok());
  CHECK(next.value().round == 3);
}

TEST_CASE("engine: a correctness break is rolled back; a fix inside the round keeps its number") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=150\ncorrect=0\n");
  auto tests = engine.runTests({dir}, {});
  REQUIRE(tests.ok());
  CHECK_FALSE(tests.value().ok);
  CHECK(tests.value().logTail.find("FAILED") != std::string::npos);
  // The agent fixes it inside the round: same round number.
  ws.setConfig("speed=150\n");
  auto again = engine.runTests({dir}, {});
  REQUIRE(again.ok());
  CHECK(again.value().ok);
  CHECK(again.value().round == 2);
  // ... and breaks it again, then validates: tests fail, ROLLBACK.
  ws.setConfig("speed=150\nfail_s3=1\n");
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().decision == "ROLLBACK");
  bool sawCheck = false;
  for (const auto& r : validated.value().reasons) sawCheck |= r.code == "check_not_pass";
  CHECK(sawCheck);
  auto decided = engine.acceptOrRevert(prose(dir), {});
  REQUIRE(decided.ok());
  CHECK(decided.value().status == "ROLLED BACK");
  CHECK(readText(ws.repo / "kernel/config.ini") == "speed=100\n");
}

TEST_CASE("engine: a near-noise gain is re-measured before any decision") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=101.2\n");
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().pairs > 6);  // more interleaved pairs than the default
}

TEST_CASE("engine: kopt writes benchmark.csv from its own runs; a planted file is replaced") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir, {"kernel"})).ok());
  ws.setConfig("speed=90\n");
  const fs::path csv = fs::path(dir) / "rounds/round-2/artifacts/benchmark.csv";
  const std::string fake =
      "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time "
      "(ms),Backward Time (ms),out_snr,da_snr,db_snr\ns1,1,64,64,64,PASS,9999,0,nan,nan,0.001,nan,inf,inf,inf\n";
  testing::writeText(csv, fake);
  // A file planted where a run will write is never read either.
  testing::writeText(fs::path(dir) / "rounds/round-2/artifacts/runs/r2-validate-quick-1-p0-candidate.csv", fake);
  // A benchmark.csv inside the declared files is just a file.
  testing::writeText(ws.repo / "kernel/benchmark.csv", fake);
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().decision == "ROLLBACK");
  const std::string written = readText(csv);
  CHECK(written != fake);
  CHECK(written.find("9999") == std::string::npos);
  CHECK(written == readText(fs::path(dir) / "rounds/round-2/artifacts/runs/r2-validate-quick-1-p0-candidate.csv"));
}

TEST_CASE("engine: a bench that writes no CSV fails its runs even if a stale file sits at the path") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=200\nnocsv=1\n");
  // Plant the baseline's CSV where each of the measurement's candidate runs will look.
  const fs::path runs = fs::path(dir) / "rounds/round-2/artifacts/runs";
  for (int p = 0; p < 6; ++p) {
    testing::writeText(runs / ("r2-validate-quick-1-p" + std::to_string(p) + "-candidate.csv"),
                       readText(fs::path(dir) / "rounds/round-1/artifacts/benchmark.csv"));
  }
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().decision == "ROLLBACK");
  for (const auto& s : validated.value().shapes) CHECK(s.check != "PASS");
}

TEST_CASE("engine: schema drift is a rollback that names the difference") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=130\nextra_column=1\n");
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(validated.ok(), validated.errorText());
  CHECK(validated.value().decision == "ROLLBACK");
  REQUIRE_FALSE(validated.value().reasons.empty());
  CHECK(validated.value().reasons[0].code == "schema_drift");
  CHECK(validated.value().reasons[0].message.find("extra") != std::string::npos);
}

TEST_CASE("engine: termination, final acceptance and the report end the campaign") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=125\n");
  REQUIRE(engine.validateRound({dir, false}, {}).ok());
  REQUIRE(engine.acceptOrRevert(prose(dir), {}).ok());
  FinalAcceptanceRequest f;
  f.campaignDir = dir;
  auto early = engine.finalAcceptance(f, {});
  REQUIRE(early.refused());
  CHECK(testing::name(early.refusal().code) == testing::name(RefusalCode::TerminationNotChecked));
  TerminationRequest t;
  t.campaignDir = dir;
  auto cont = engine.terminationCheck(t);
  REQUIRE(cont.ok());
  CHECK_FALSE(cont.value().stop);
  t.userStop = true;
  auto stop = engine.terminationCheck(t);
  REQUIRE(stop.ok());
  CHECK(stop.value().stop);
  auto final = engine.finalAcceptance(f, {});
  REQUIRE_MESSAGE(final.ok(), final.errorText());
  CHECK(final.value().testsOk);
  REQUIRE(final.value().aggregate.ratio);
  CHECK(*final.value().aggregate.ratio > 1.15);
  auto rep = engine.report(dir);
  REQUIRE_MESSAGE(rep.ok(), rep.errorText());
  CHECK(fs::exists(rep.value().reportPath));
  CHECK(readText(fs::path(dir) / "logs/optimize.md").find("Final Report") != std::string::npos);
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK(testing::name(status.value().phase) == testing::name(Phase::Done));
  auto trend = engine.queryTrend(dir, 10);
  REQUIRE(trend.ok());
  CHECK(trend.value().rows.size() == 2);
  CHECK(trend.value().currentBestRound == 2);
  auto best = engine.readBestSummary(dir);
  REQUIRE(best.ok());
  CHECK(best.value().round == 2);
  CHECK(best.value().body.find("ACCEPTED") != std::string::npos);
}

TEST_CASE("engine: tips are appended under a lock and queried by keyword") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = testing::defineFakeCampaign(engine);
  AppendTipRequest a;
  a.campaignDir = dir;
  a.round = 2;
  a.context = "tile sweep";
  a.signal = "+6%";
  a.takeaway = "128x64 tiles win on skinny shapes";
  auto appended = engine.appendTip(a);
  REQUIRE_MESSAGE(appended.ok(), appended.errorText());
  TipsQueryRequest q;
  q.campaignDir = dir;
  q.keyword = "skinny";
  auto found = engine.queryTips(q);
  REQUIRE(found.ok());
  REQUIRE(found.value().items.size() == 1);
  q.keyword = "nothing-like-this";
  CHECK(engine.queryTips(q).value().items.empty());
}

}  // namespace kopt::campaign

namespace kopt::campaign {

TEST_CASE("engine: after a crash mid-measurement the next one takes a new tag and the old files are gone") {
  FakeWorkspace ws;
  std::string dir;
  {
    CampaignEngine engine(ws.options());
    dir = testing::fakeCampaignAtBaseline(engine);
    REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  }
  ws.setConfig("speed=120\n");
  ws.faults = {"bench:after-pairs"};
  {
    CampaignEngine engine(ws.options());
    CHECK_THROWS_AS(engine.runQuickBench({dir, false, 2}, {}), testing::InjectedCrash);
  }
  const fs::path runs = fs::path(dir) / "rounds/round-2/artifacts/runs";
  CHECK(fs::exists(runs / "r2-quick-1-p0-candidate.csv"));
  auto status = CampaignEngine(ws.options()).campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK(status.value().pendingStep == "bench (round-2)");
  CampaignEngine engine(ws.options());
  auto again = engine.runQuickBench({dir, false, 2}, {});
  REQUIRE_MESSAGE(again.ok(), again.errorText());
  CHECK_FALSE(fs::exists(runs / "r2-quick-1-p0-candidate.csv"));
  CHECK(fs::exists(runs / "r2-quick-2-p0-candidate.csv"));
  CHECK(readText(fs::path(dir) / "rounds/round-2/artifacts/discarded-tags") == "r2-quick-1\n");
  CHECK(engine.campaignStatus(dir).value().pendingStep.empty());
}

}  // namespace kopt::campaign

namespace kopt::campaign {
namespace {

// The local executor, except that a run is lost the way a Slurm job is when its node dies
// (exec::RunOutcome::Lost) whenever `loses` says so of its command line.
class NodeLossExecutor final : public exec::Executor {
 public:
  explicit NodeLossExecutor(std::function<bool(const std::string&)> loses)
      : local_(exec::makeLocalExecutor()), loses_(std::move(loses)) {}
  std::string name() const override { return "node-loss"; }
  exec::RunResult run(const exec::CommandSpec& spec, const exec::RunObserver& observer) override {
    if (loses_(util::join(spec.argv, " "))) {
      exec::RunResult lost;
      lost.outcome = exec::RunOutcome::Lost;
      lost.error = "node n1 stopped answering: the job is lost, not measured";
      return lost;
    }
    return local_->run(spec, observer);
  }

 private:
  std::unique_ptr<exec::Executor> local_;
  std::function<bool(const std::string&)> loses_;
};

int countEvents(const std::string& dir, const std::string& type) {
  int n = 0;
  for (const auto& line : util::split(readText(fs::path(dir) / "ledger.jsonl"), '\n')) {
    n += line.find("\"type\":\"" + type + "\"") != std::string::npos;
  }
  return n;
}

}  // namespace

TEST_CASE("engine: a bench run lost by the cluster is an error and records nothing; the retry measures") {
  FakeWorkspace ws;
  auto losing = std::make_shared<bool>(false);
  auto keep = std::make_shared<int>(0);
  EngineOptions options = ws.options();
  // Bench runs after the first `keep` are lost while `losing` is set.
  options.executorFactory = [=](const Manifest&) {
    return std::make_unique<NodeLossExecutor>([=](const std::string& command) {
      return command.find("bench.py") != std::string::npos && *losing && (*keep)-- <= 0;
    });
  };
  CampaignEngine engine(options);
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=120\n");
  const int benchesBefore = countEvents(dir, "bench_finished");

  *losing = true;
  *keep = 3;  // pair 1 and the candidate of pair 2 run; pair 2's best run is lost
  auto lost = engine.runQuickBench({dir, false, 3}, {});
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.errorText().find("lost by the cluster") != std::string::npos);
  CHECK(lost.errorText().find("node n1") != std::string::npos);
  CHECK(countEvents(dir, "bench_finished") == benchesBefore);
  CHECK(engine.campaignStatus(dir).value().pendingStep.empty());
  // validate_round stops the same way, and its verdict is not written.
  *keep = 0;
  auto notValidated = engine.validateRound({dir, false}, {});
  REQUIRE_FALSE(notValidated.ok());
  CHECK(notValidated.errorText().find("lost by the cluster") != std::string::npos);
  CHECK(countEvents(dir, "round_validated") == 0);

  *losing = false;
  auto measured = engine.runQuickBench({dir, false, 3}, {});
  REQUIRE_MESSAGE(measured.ok(), measured.errorText());
  CHECK(countEvents(dir, "bench_finished") == benchesBefore + 1);
}

TEST_CASE("engine: a build or test run lost by the cluster is no failed build or test, in any tool (docs/slurm.md)") {
  FakeWorkspace ws;
  auto lost = std::make_shared<std::string>();
  EngineOptions options = ws.options();
  // The runs whose command line contains `*lost` are lost while it is set.
  options.executorFactory = [=](const Manifest&) {
    return std::make_unique<NodeLossExecutor>(
        [=](const std::string& command) { return !lost->empty() && command.find(*lost) != std::string::npos; });
  };
  CampaignEngine engine(options);
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=120\n");
  const int buildsBefore = countEvents(dir, "build_finished");
  const int testsBefore = countEvents(dir, "tests_finished");
  *lost = "build.py";
  const std::vector<std::pair<std::string, std::string>> failures = {
      {"rebuild_kernel", engine.rebuildKernel({dir}, {}).errorText()},
      {"run_tests", engine.runTests({dir}, {}).errorText()},
      {"run_quick_bench", engine.runQuickBench({dir, false, 2}, {}).errorText()},
      {"validate_round", engine.validateRound({dir, false}, {}).errorText()}};
  for (const auto& failure : failures) {
    CAPTURE(failure.second);
    CHECK(failure.second.find(failure.first + " stopped: a run was lost by the cluster") == 0);
  }
  CHECK(countEvents(dir, "build_finished") == buildsBefore);
  CHECK(countEvents(dir, "round_validated") == 0);
  // The candidate built, its tests lost: validate_round stops instead of rolling the round back.
  *lost = "test.py";
  auto validated = engine.validateRound({dir, false}, {});
  REQUIRE_FALSE(validated.ok());
  CHECK(validated.errorText().find("validate_round stopped: a run was lost by the cluster") == 0);
  CHECK(countEvents(dir, "build_finished") == buildsBefore + 1);
  CHECK(countEvents(dir, "tests_finished") == testsBefore);
  CHECK(countEvents(dir, "round_validated") == 0);
  CHECK(engine.campaignStatus(dir).value().pendingStep.empty());
  *lost = "";
  auto retried = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(retried.ok(), retried.errorText());
}

TEST_CASE("engine: run_baseline whose best-tree build the cluster lost stops unjudged, not as a broken baseline") {
  FakeWorkspace ws;
  auto buildsLeft = std::make_shared<int>(1);  // the repository's build runs; the best tree's is lost
  EngineOptions options = ws.options();
  options.executorFactory = [=](const Manifest&) {
    return std::make_unique<NodeLossExecutor>(
        [=](const std::string& command) { return command.find("build.py") != std::string::npos && (*buildsLeft)-- <= 0; });
  };
  CampaignEngine engine(options);
  const std::string dir = testing::defineFakeCampaign(engine);
  REQUIRE(engine.confirmTarget({dir, true, "tester", "argument"}).ok());
  REQUIRE(engine.prepareEnvironment(dir).ok());
  REQUIRE(engine.readTips(dir).ok());
  auto lost = engine.runBaseline(dir, {});
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.errorText().find("run_baseline stopped: a run was lost by the cluster") == 0);
  CHECK(countEvents(dir, "baseline_recorded") == 0);
  CHECK(engine.campaignStatus(dir).value().pendingStep.empty());
  // The node is back: the same call measures the baseline.
  *buildsLeft = 1000;
  auto measured = engine.runBaseline(dir, {});
  REQUIRE_MESSAGE(measured.ok(), measured.errorText());
}

}  // namespace kopt::campaign

namespace kopt::campaign {

TEST_CASE("engine: a full measurement is sharded over executor.devices; each shape's A/B stays on one device") {
  FakeWorkspace ws;
  testing::writeText(ws.repo / "manifest.yaml",
                     readText(ws.repo / "manifest.yaml") + "executor: {kind: local, devices: [g0, g1]}\n");
  CampaignEngine engine(ws.options());
  const std::string dir = testing::fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=120\n");
  auto full = engine.runQuickBench({dir, true, 2}, {});
  REQUIRE_MESSAGE(full.ok(), full.errorText());
  CHECK(full.value().shapes.size() == 4);

  const fs::path runs = fs::path(dir) / "rounds/round-2/artifacts/runs";
  auto labels = [](const fs::path& csv) {
    std::vector<std::string> out;
    for (const auto& line : util::splitLines(readText(csv))) {
      if (!line.empty() && line.rfind("label,", 0) != 0) out.push_back(line.substr(0, line.find(',')));
    }
    return out;
  };
  for (const char* pair : {"p0", "p1"}) {
    CAPTURE(pair);
    const std::string stem = std::string("r2-full-1-") + pair;
    // Round-robin over the baseline's shape order, the same split for both arms.
    for (const char* arm : {"-candidate", "-best"}) {
      CHECK(labels(runs / (stem + arm + ".shards/shard-0.csv")) == std::vector<std::string>{"s1", "s3"});
      CHECK(labels(runs / (stem + arm + ".shards/shard-1.csv")) == std::vector<std::string>{"s2", "s4"});
      // The merged table is the unsharded one's: every shape, in the baseline's order.
      CHECK(labels(runs / (stem + arm + ".csv")) == std::vector<std::string>{"s1", "s2", "s3", "s4"});
    }
  }
  // The baseline (target_shapes: all) ran unsharded: only its first table tells the shapes.
  int baselineTables = 0, baselineShards = 0;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "rounds/round-1/artifacts/runs")) {
    const std::string name = e.path().filename().string();
    baselineTables += name.size() > 4 && name.compare(name.size() - 4, 4, ".csv") == 0;
    baselineShards += name.find(".shards") != std::string::npos;
  }
  CHECK(baselineTables > 0);
  CHECK(baselineShards == 0);
}

}  // namespace kopt::campaign
