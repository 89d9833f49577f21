// The worker runner against a scripted worker (tests/fixtures/bench_worker/fake_worker.py): block
// order, the idle arm stopped during the other's batch, per-block files that read back like
// process runs, and every way a worker can fail.
#include "campaign/interleaved_runner.h"

#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "campaign/bench_worker.h"
#include "campaign/campaign_env.h"
#include "campaign/measurement_setup.h"
#include "campaign/spare_workers.h"
#include "exec/cpu_affinity.h"
#include "exec/stray_processes.h"
#include "util/atomic_file.h"

namespace kopt::campaign {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* kHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time "
    "(ms),Backward Time (ms),out_snr,da_snr,db_snr\n";

struct Fixture {
  fs::path root;
  fs::path candidate, best, runs, log;
  Fixture(const std::string& tag, json candidateCfg, json bestCfg) {
    root = fs::temp_directory_path() / ("kopt_interleaved_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(root);
    candidate = root / "candidate";
    best = root / "best";
    runs = root / "runs";
    log = root / "batches.log";
    fs::create_directories(candidate);
    fs::create_directories(best);
    candidateCfg["name"] = "candidate";
    candidateCfg["log"] = log.string();
    candidateCfg["pid_file"] = (root / "candidate.pid").string();
    candidateCfg["peer_pid_file"] = (root / "best.pid").string();
    bestCfg["name"] = "best";
    bestCfg["log"] = log.string();
    bestCfg["pid_file"] = (root / "best.pid").string();
    bestCfg["peer_pid_file"] = (root / "candidate.pid").string();
    std::ofstream(candidate / "arm.json") << candidateCfg.dump();
    std::ofstream(best / "arm.json") << bestCfg.dump();
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  MeasurementPlan plan() const {
    MeasurementPlan p;
    p.tag = "t";
    auto cmd = parseCommand(std::string("python3 ") + KOPT_SOURCE_DIR + "/tests/fixtures/bench_worker/fake_worker.py");
    p.command = std::get<Command>(cmd);
    p.candidateTree = candidate;
    p.bestTree = best;
    p.runsDir = runs;
    p.timeout = std::chrono::seconds(30);
    p.workers = true;
    p.batchMs = 24;  // 3 ms per step in the fake worker: 8 calls per batch
    p.metric = *measure::PrimaryMetric::parse("Combined Step TFLOPS");
    return p;
  }
  // The plan with its arms' builds named (what a spare worker must have been started for), and the
  // runs directory made for the spares' logs.
  MeasurementPlan planWithBuilds(const std::string& candidateBuild, const std::string& bestBuild = "") const {
    MeasurementPlan p = plan();
    p.candidateBuild = candidateBuild;
    p.bestBuild = bestBuild;
    fs::create_directories(runs);
    return p;
  }
  // Both fake workers wait for each other at start-up (proof that they start at once), and log
  // their prepares.
  void meetAtStart() const {
    const fs::path meet = root / "meet";
    fs::create_directories(meet);
    for (const fs::path& tree : {candidate, best}) {
      std::ifstream in(tree / "arm.json");
      json cfg = json::parse(in);
      cfg["rendezvous"] = meet.string();
      std::ofstream(tree / "arm.json") << cfg.dump();
    }
  }
  std::vector<std::string> logLines() const {
    std::ifstream in(log);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

std::uint64_t counter() {
  static std::uint64_t n = 100;
  return ++n;
}

}  // namespace

TEST_CASE("blocks alternate ABBA and BAAB, and batches are sized from the best's warm-up") {
  CHECK(blockOrder(0) == std::vector<bool>{true, false, false, true});
  CHECK(blockOrder(1) == std::vector<bool>{false, true, true, false});
  CHECK(blockOrder(6) == blockOrder(0));
  CHECK(callsPerBatch(0.5, 5.0) == 10);
  CHECK(callsPerBatch(10.0, 5.0) == 3);      // at least 3 calls, even for a slow kernel
  CHECK(callsPerBatch(1e-6, 5.0) == 4096);   // at most 4096
  CHECK(callsPerBatch(std::nan(""), 5.0) == 3);
}

TEST_CASE("two honest workers: one pair per block, the idle worker stopped during every batch") {
  Fixture f("honest", json{{"ms", 1.0}, {"probe_us", 7.5}}, json{{"ms", 1.25}, {"probe_us", 9.0}});
  const MeasurementPlan plan = f.plan();
  InterleavedRunner runner(counter);
  auto pairs = runner.run(plan, 0, 4, 0, CallContext{}, 0, 8);
  REQUIRE(pairs.size() == 4);
  // 2 shapes x 4 blocks x 4 batches, in ABBA BAAB order per shape, the peer always stopped.
  const auto lines = f.logLines();
  REQUIRE(lines.size() == 32);
  const std::vector<std::string> order = {"candidate", "best", "best", "candidate", "best", "candidate", "candidate", "best"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CAPTURE(lines[i]);
    CHECK(lines[i].rfind(order[i % 8] + " batch " + (i < 16 ? "s1" : "s2"), 0) == 0);
    CHECK(lines[i].find("peer=T") != std::string::npos);
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const PairRun& p = pairs[i];
    CHECK(p.index == static_cast<int>(i));
    CHECK(p.candidateFirst == (i % 2 == 0));
    for (const ArmRun* arm : {&p.candidate, &p.best}) {
      CAPTURE(arm->error);
      CHECK(arm->ok);
      REQUIRE(arm->table);
      CHECK(arm->table->schema.headerBytes == kHeader);
      CHECK(arm->table->labels() == std::vector<std::string>{"s1", "s2"});
      REQUIRE(arm->samplesFile);
      // The block's own calls: two batches per direction and shape, each sized for the best's
      // 3.75 ms step: round(24 / 3.75) = 6 calls.
      const auto* fwd = arm->samplesFile->find("s1", measure::Direction::Forward);
      REQUIRE(fwd);
      CHECK(fwd->timesMs.size() == 12);
    }
    // Combined step 6MNK / (t_f + t_b): the candidate at 3 ms per step, the best at 3.75 ms.
    const double c = *p.candidate.summary.find("s1");
    const double b = *p.best.summary.find("s1");
    CHECK(c / b == doctest::Approx(1.25));
  }
  // Each arm's idle probes (one a batch: 2 shapes x 4 blocks x 2 batches) are summarised per shape.
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  const json probes = json::parse(timingFile)["shapes"][0]["idle_probe_us"];
  CHECK(probes["candidate"]["median"] == 7.5);
  CHECK(probes["best"]["max"] == 9.0);
  CHECK(probes["best"]["batches"] == 8);
  // Blocks of a later look continue the numbering and the order.
  auto more = runner.run(plan, 4, 2, 1, CallContext{}, 0, 4);
  REQUIRE(more.size() == 2);
  CHECK(more[0].index == 4);
  CHECK(more[0].session == 1);
  CHECK(more[1].candidateFirst == false);
  const auto assembled = assemble(pairs, kHeader, {"s1", "s2"});
  CHECK(assembled.usablePairs == 4);
  CHECK(assembled.problems.empty());
  REQUIRE(assembled.runs.size() == 2);
  CHECK(assembled.runs[0].candidate.size() == 4);
}

TEST_CASE("both workers start up at once, then prepare and measure one at a time on one CPU") {
  Fixture f("parallel", json::object(), json::object());
  f.meetAtStart();
  MeasurementPlan plan = f.plan();
  const std::set<int> cpus = exec::allowedCpus();
  if (cpus.size() >= 2) plan.workerCpu = *cpus.begin();  // not the highest: the pin is kopt's doing
  InterleavedRunner runner(counter);
  auto pairs = runner.run(plan, 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  for (const PairRun& p : pairs) {
    CAPTURE(p.candidate.error);
    CHECK(p.candidate.ok);
    CHECK(p.best.ok);
  }
  int hellos = 0, prepares = 0, batches = 0;
  for (const auto& line : f.logLines()) {
    CAPTURE(line);
    if (line.find(" hello ") != std::string::npos) {
      ++hellos;
      CHECK(line.find("met=yes") != std::string::npos);
      continue;
    }
    if (line.find(" prepare ") != std::string::npos) {
      ++prepares;
      // Both arms warm up alike, the sizing batch included (only the best's number is read).
      CHECK(line.find(" sizing=yes ") != std::string::npos);
    }
    if (line.find(" batch ") != std::string::npos) ++batches;
    // A prepare ends in verified, timed warm-up calls: the other worker is stopped then too.
    CHECK(line.find("peer=T") != std::string::npos);
    if (plan.workerCpu) CHECK(line.substr(line.find("cpus=") + 5) == std::to_string(*plan.workerCpu));
  }
  CHECK(hellos == 2);
  CHECK(prepares == 4);  // 2 shapes x 2 arms
  CHECK(batches == 16);  // 2 shapes x 2 blocks x 4 batches
  // Where the session's time went, per shape.
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  REQUIRE(timingFile);
  const json timing = json::parse(timingFile);
  REQUIRE(timing["shapes"].size() == 2);
  CHECK(timing["shapes"][0]["shape"] == "s1");
  CHECK(timing["total_ms"].get<double>() >= timing["start_ms"].get<double>());
}

TEST_CASE("a best build's batch size is measured in its first look and remembered for the next") {
  Fixture f("memo", json::object(), json::object());
  f.meetAtStart();  // with a rendezvous the fake worker also logs its prepares
  MeasurementPlan plan = f.plan();
  plan.bestIdentity = "memo-test-" + std::to_string(::getpid()) + "\npython3 fake_worker.py";
  InterleavedRunner runner(counter);
  REQUIRE(runner.run(plan, 0, 1, 0, CallContext{}, 0, 2).size() == 1);
  const auto firstLines = f.logLines();
  REQUIRE(runner.run(plan, 1, 1, 1, CallContext{}, 0, 2).size() == 1);
  const auto allLines = f.logLines();
  int sized = 0, unsized = 0;
  for (std::size_t i = 0; i < allLines.size(); ++i) {
    const std::string& line = allLines[i];
    if (line.find(" prepare ") == std::string::npos) continue;
    const bool sizing = line.find(" sizing=yes ") != std::string::npos;
    CAPTURE(line);
    // First look: both arms run the sizing batch. Second look: neither, the first look's size holds.
    CHECK(sizing == (i < firstLines.size()));
    (sizing ? sized : unsized) += 1;
  }
  CHECK(sized == 4);    // both arms' prepares of 2 shapes in the first look
  CHECK(unsized == 4);  // both arms' in the second look
  auto timing = [&](int session) {
    std::ifstream in(f.runs / ("t-s" + std::to_string(session) + "-timing.json"));
    return json::parse(in);
  };
  const json first = timing(0), second = timing(1);
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(first["shapes"][k]["sized_from_memo"] == false);
    CHECK(second["shapes"][k]["sized_from_memo"] == true);
    CHECK(second["shapes"][k]["calls_per_batch"] == first["shapes"][k]["calls_per_batch"]);
    // The step that sized them is recorded, so a batch held at the least 3 calls shows why.
    CHECK(first["shapes"][k]["step_ms"].get<double>() == doctest::Approx(3.0));
    CHECK(second["shapes"][k]["step_ms"] == first["shapes"][k]["step_ms"]);
  }
  // Another build (an accepted round) measures afresh.
  plan.bestIdentity += "-accepted";
  REQUIRE(runner.run(plan, 2, 1, 2, CallContext{}, 0, 2).size() == 1);
  CHECK(timing(2)["shapes"][0]["sized_from_memo"] == false);
}

TEST_CASE("workers started ahead of a look are its workers, and their logs take the look's names") {
  Fixture f("ahead", json::object(), json::object());
  const MeasurementPlan plan = f.planWithBuilds("candidate build 1", "best commit 1");
  std::string error;
  REQUIRE(SpareWorkers::shared().offer("candidate", armWorkerSpec(plan, true, f.runs / "ahead-candidate.log"),
                                       plan.candidateBuild, error));
  REQUIRE(SpareWorkers::shared().offer("best", armWorkerSpec(plan, false, f.runs / "ahead-best.log"),
                                       plan.bestBuild, error));
  const std::vector<pid_t> spares = SpareWorkers::shared().pids();
  REQUIRE(spares.size() == 2);
  auto pairs = InterleavedRunner(counter).run(plan, 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  for (const PairRun& p : pairs) {
    CAPTURE(p.candidate.error);
    CHECK(p.candidate.ok);
    CHECK(p.best.ok);
  }
  // The processes that answered are the spares (each fake worker writes its pid as it starts).
  CHECK(util::readFile(f.root / "candidate.pid") == std::to_string(spares[0]));
  CHECK(util::readFile(f.root / "best.pid") == std::to_string(spares[1]));
  CHECK(SpareWorkers::shared().pids().empty());
  CHECK(fs::exists(f.runs / "t-s0-candidate.log"));
  CHECK_FALSE(fs::exists(f.runs / "ahead-candidate.log"));
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  CHECK(json::parse(timingFile)["spare_workers"] == json::array({"best", "candidate"}));
}

TEST_CASE("every worker is told how many workers share its device, and a spare told another count is not taken") {
  Fixture f("workers_env", json{{"env_file", "candidate.env"}, {"reruns", 1}, {"autotune", {{"_bwd", "BLOCK: 2, num_warps: 8"}}}},
            json{{"env_file", "best.env"}});
  MeasurementPlan plan = f.planWithBuilds("candidate build 1", "best commit 1");
  // A look alone: its two arms.
  CHECK(armWorkerSpec(plan, true, f.runs / "x.log").env.at(kWorkersOnDeviceEnv) == "2");
  CHECK(detail::workersOnDevice(false, 3) == 2);
  // run_baseline with its 3 A/A sessions started at once: six workers.
  plan.workersOnDevice = detail::workersOnDevice(true, 3);
  CHECK(plan.workersOnDevice == 6);
  // The command's own value does not win: only kopt knows how many workers it keeps.
  plan.command.parsed.env[kWorkersOnDeviceEnv] = "1";
  const exec::WorkerSpec six = armWorkerSpec(plan, false, f.runs / "ahead-best.log");
  CHECK(six.env.at(kWorkersOnDeviceEnv) == "6");
  // A spare started for a look of two workers is another worker than the baseline's: not taken.
  MeasurementPlan two = plan;
  two.workersOnDevice = 2;
  CHECK_FALSE(sameWorker(armWorkerSpec(two, false, f.runs / "a.log"), six));
  std::string error;
  REQUIRE(SpareWorkers::shared().offer("best", armWorkerSpec(two, false, f.runs / "ahead-best.log"), plan.bestBuild, error));
  REQUIRE(SpareWorkers::shared().pids().size() == 1);
  auto pairs = InterleavedRunner(counter).run(plan, 0, 1, 0, CallContext{}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].candidate.ok);
  CHECK(pairs[0].best.ok);
  CHECK(SpareWorkers::shared().pids().empty());  // ended, not taken
  // Both processes of the look read the count from their environment.
  // ...and the campaign's autotune cache (the plan's placeholders name no campaign here: none).
  CHECK(util::readFile(f.candidate / "candidate.env") == "6|");
  CHECK(util::readFile(f.best / "best.env") == "6|");
  // The attempts each worker ran again are counted per arm and shape in the session's timing file:
  // the candidate's worker said 1 in each of its 2 batches of the block.
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  const json shape = json::parse(timingFile)["shapes"][0];
  CHECK(shape["reruns"] == json({{"candidate", 2}, {"best", 0}}));
  // The config each arm's autotuner ran, as its prepare reply said.
  CHECK(shape["autotune"] == json({{"candidate", {{"_bwd", "BLOCK: 2, num_warps: 8"}}}, {"best", json::object()}}));
  // Every worker of a campaign gets the campaign's own autotune cache; the command's own wins.
  MeasurementPlan campaign = plan;
  campaign.candidatePlaceholders.campaignDir = "/r/.kopt/campaigns/c";
  CHECK(armWorkerSpec(campaign, true, f.runs / "c.log").env.at(kAutotuneCacheEnv) == "/r/.kopt/campaigns/c/autotune");
  campaign.command.parsed.env[kAutotuneCacheEnv] = "off";
  CHECK(armWorkerSpec(campaign, true, f.runs / "c.log").env.at(kAutotuneCacheEnv) == "off");
}

// /proc state letter of `pid` ('T' = stopped), '?' when it is gone.
char processState(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

TEST_CASE("workers kept for a later session wait stopped through an earlier look, and that session takes them") {
  Fixture f("later", json::object(), json::object());
  const MeasurementPlan plan = f.planWithBuilds("baseline tree", "baseline commit");
  std::string error;
  for (int session : {0, 1}) {
    for (bool candidate : {true, false}) {
      const std::string look = sessionStem(plan.tag, session);
      REQUIRE(SpareWorkers::shared().offer(armName(candidate),
                                           armWorkerSpec(plan, candidate, f.runs / ("ahead-" + look + "-" + armName(candidate) + ".log")),
                                           armBuild(plan, candidate), error, look));
    }
  }
  // Another measurement's spare is not kept by this one's looks.
  REQUIRE(SpareWorkers::shared().offer("best", armWorkerSpec(plan, false, f.runs / "ahead-other.log"), plan.bestBuild,
                                       error, sessionStem("other", 1)));
  const std::vector<pid_t> all = SpareWorkers::shared().pids();
  REQUIRE(all.size() == 5);
  const std::vector<pid_t> later(all.begin() + 2, all.begin() + 4);
  InterleavedRunner runner(counter);
  auto first = runner.run(plan, 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(first.size() == 2);
  CHECK(first[0].candidate.ok);
  CHECK(first[0].best.ok);
  // Session 1's workers outlived session 0's look, stopped; the other measurement's spare did not.
  CHECK(SpareWorkers::shared().pids() == later);
  for (pid_t pid : later) CHECK(processState(pid) == 'T');
  CHECK(::kill(all[4], 0) == -1);
  auto second = runner.run(plan, 2, 2, 1, CallContext{}, 0, 4);
  REQUIRE(second.size() == 2);
  CHECK(second[1].candidate.ok);
  CHECK(second[1].best.ok);
  CHECK(SpareWorkers::shared().pids().empty());
  for (int session : {0, 1}) {
    std::ifstream timingFile(f.runs / (sessionStem(plan.tag, session) + "-timing.json"));
    CHECK(json::parse(timingFile)["spare_workers"] == json::array({"best", "candidate"}));
  }
  for (pid_t pid : later) CHECK(::kill(pid, 0) == -1);  // they answered session 1 and quit with it
}

TEST_CASE("a look's workers and the spares kept for its later session warm up all at once, before any prepare") {
  const fs::path meet = fs::temp_directory_path() / ("kopt_warm_meet_" + std::to_string(::getpid()));
  fs::remove_all(meet);
  fs::create_directories(meet);
  const json warm{{"warm", true}, {"warm_meet", meet.string()}, {"warm_meet_count", 4}};
  Fixture f("warm", warm, warm);
  f.meetAtStart();  // the prepares are logged too
  const MeasurementPlan plan = f.planWithBuilds("baseline tree", "baseline commit");
  std::string error;
  for (bool candidate : {true, false}) {
    const std::string look = sessionStem(plan.tag, 1);
    REQUIRE(SpareWorkers::shared().offer(armName(candidate),
                                         armWorkerSpec(plan, candidate, f.runs / ("ahead-" + look + "-" + armName(candidate) + ".log")),
                                         armBuild(plan, candidate), error, look));
  }
  InterleavedRunner runner(counter);
  REQUIRE(runner.run(plan, 0, 1, 0, CallContext{}, 0, 2).size() == 1);
  // Session 1's workers warm in session 0's look and not again in their own.
  REQUIRE(runner.run(plan, 1, 1, 1, CallContext{}, 0, 2).size() == 1);
  std::vector<std::string> warms, rest;
  for (const auto& line : f.logLines()) {
    if (line.find(" hello ") != std::string::npos) continue;  // the rendezvous at start-up
    (line.find(" warm ") != std::string::npos ? warms : rest).push_back(line);
  }
  // Four warms of the first shape, all four workers warming at the same time...
  REQUIRE(warms.size() == 4);
  for (const auto& line : warms) {
    CAPTURE(line);
    CHECK(line.find(" warm s1 met=yes") != std::string::npos);
  }
  // ...and before anything else: the first four log lines.
  const auto lines = f.logLines();
  std::size_t warmsFirst = 0;
  for (const auto& line : lines) {
    if (line.find(" hello ") != std::string::npos) continue;
    if (line.find(" warm ") == std::string::npos) break;
    ++warmsFirst;
  }
  CHECK(warmsFirst == 4);
  CHECK_FALSE(rest.empty());
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  CHECK(json::parse(timingFile)["warm_ms"].get<double>() > 0);
  fs::remove_all(meet);
}

TEST_CASE("a worker started ahead for another build is not taken: it ends, and the look starts its own") {
  Fixture f("stale", json::object(), json::object());
  const MeasurementPlan plan = f.planWithBuilds("candidate build 2");
  std::string error;
  REQUIRE(SpareWorkers::shared().offer("candidate", armWorkerSpec(plan, true, f.runs / "ahead-candidate.log"),
                                       "candidate build 1", error));
  const std::vector<pid_t> spares = SpareWorkers::shared().pids();
  REQUIRE(spares.size() == 1);
  auto pairs = InterleavedRunner(counter).run(plan, 0, 1, 0, CallContext{}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].candidate.ok);
  CHECK(util::readFile(f.root / "candidate.pid") != std::to_string(spares[0]));
  CHECK(::kill(spares[0], 0) == -1);  // ended and reaped before the look timed anything
  CHECK(SpareWorkers::shared().pids().empty());
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  CHECK(json::parse(timingFile)["spare_workers"] == json::array());
}

TEST_CASE("a candidate that fails its check is not timed, and its row says FAIL") {
  Fixture f("failcheck", json{{"mode", "fail_check"}}, json::object());
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  CHECK(f.logLines().empty());  // no batch ran
  const auto assembled = assemble(pairs, kHeader, {"s1", "s2"});
  for (const auto& [label, check] : assembled.candidateChecks) CHECK((check == measure::Check::Fail));
  CHECK(pairs[0].candidate.error.find("s1: FAIL: wrong") != std::string::npos);
}

TEST_CASE("calls that fail verification end the shape's timing and fail the shape") {
  Fixture f("errors", json{{"mode", "errors"}}, json::object());
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 4, 0, CallContext{}, 0, 8);
  REQUIRE(pairs.size() == 4);
  // One block per shape (4 batches each), then the shape stops.
  CHECK(f.logLines().size() == 8);
  const auto assembled = assemble(pairs, kHeader, {"s1", "s2"});
  for (const auto& [label, check] : assembled.candidateChecks) CHECK((check == measure::Check::Fail));
  CHECK(pairs[0].candidate.error.find("failed verification") != std::string::npos);
}

TEST_CASE("a candidate worker that dies fails the candidate arm and nothing else runs") {
  Fixture f("dies", json{{"mode", "die_at_prepare"}}, json::object());
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  CHECK_FALSE(pairs[0].candidate.ok);
  CHECK(pairs[0].candidate.error.find("died during 'prepare'") != std::string::npos);
  CHECK(pairs[0].candidate.error.find("exited 9") != std::string::npos);
  // The best, measured nothing, says why: the engine judges the candidate's failure first.
  CHECK(pairs[0].best.error.rfind("not measured: the candidate worker died", 0) == 0);
  CHECK(assemble(pairs, kHeader, {"s1", "s2"}).candidateRunFailed);
}

TEST_CASE("a candidate worker that dies while it warms up fails the candidate arm before anything is timed") {
  Fixture f("dies_warm", json{{"warm", true}, {"mode", "die_at_warm"}}, json{{"warm", true}});
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 1, 0, CallContext{}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK_FALSE(pairs[0].candidate.ok);
  CHECK(pairs[0].candidate.error.find("died during 'warm'") != std::string::npos);
  CHECK(pairs[0].best.error.rfind("not measured: the candidate worker died", 0) == 0);
  for (const auto& line : f.logLines()) CHECK(line.find(" batch ") == std::string::npos);
}

TEST_CASE("a best batch that finds the GPU still busy after the candidate's turn refuses the look") {
  // The best's worker says each of its batches waited out the harness's cap for an idle GPU.
  Fixture f("busy", json::object(), json{{"gpu_busy", true}});
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  CHECK_FALSE(pairs[0].candidate.ok);
  CHECK(pairs[0].candidate.error.find("the GPU stayed busy before the best's batch of s1, right after the candidate's") !=
        std::string::npos);
  // Refused at the first best batch (ABBA: the second of the look): nothing after it ran.
  const auto lines = f.logLines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].rfind("best batch s1", 0) == 0);
}

TEST_CASE("a candidate batch that finds the GPU busy is noted, not blamed on the best") {
  Fixture f("busy_candidate", json{{"gpu_busy", true}, {"probe_us", 50.0}}, json{{"probe_us", 45.0}});
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 1, 0, CallContext{}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].best.ok);
  CHECK(pairs[0].candidate.error.find("s1: the GPU stayed busy before a candidate batch") != std::string::npos);
  std::ifstream timingFile(f.runs / "t-s0-timing.json");
  const json probes = json::parse(timingFile)["shapes"][0]["idle_probe_us"];
  CHECK(probes["candidate"]["waited_ms"] == 4000.0);  // two batches, each waited out the 2 s cap
  CHECK(probes["candidate"]["batches_waited"] == 2);
  CHECK(probes["best"]["waited_ms"] == 0.0);
}

TEST_CASE("a candidate that starts a daemon outside its session: the daemon ends, the look is refused") {
  REQUIRE(exec::becomeSubreaper());  // as kopt's main does: the double-forked daemon comes back to us
  Fixture f("daemon", json{{"mode", "daemon_at_prepare"}}, json::object());
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  CHECK_FALSE(pairs[0].candidate.ok);
  // Found between blocks or after the look, depending on when the daemon's setsid ran; caught
  // half-way (before its second fork or its exec of sleep) it is named as python3.
  CHECK(pairs[0].candidate.error.rfind("the measurement is refused: ", 0) == 0);
  CHECK(pairs[0].candidate.error.find(" escaped ") != std::string::npos);
  CHECK(pairs[0].candidate.error.find("; kopt ended ") != std::string::npos);
  CHECK(exec::findStrayProcesses().empty());
}

TEST_CASE("a candidate whose harness hooks differ from the best's is refused before anything is timed") {
  const std::string baseline(64, 'a');
  Fixture f("hooks", json{{"hooks", std::string(64, 'b')}}, json{{"hooks", baseline}});
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  CHECK_FALSE(pairs[0].candidate.ok);
  CHECK(pairs[0].candidate.error.rfind("the measurement is refused: the candidate's kernel module changed its "
                                        "harness hooks",
                                        0) == 0);
  CHECK(assemble(pairs, kHeader, {"s1", "s2"}).candidateRunFailed);
  // Nothing was prepared or timed: the refusal came with the hellos.
  for (const auto& line : f.logLines()) CHECK(line.find(" batch ") == std::string::npos);

  // The same hooks on both sides: measured, and the records carry the fingerprint.
  Fixture same("hooks_same", json{{"hooks", baseline}}, json{{"hooks", baseline}});
  auto ok = InterleavedRunner(counter).run(same.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(ok.size() == 2);
  CHECK(ok[0].candidate.ok);
  REQUIRE(ok[0].candidate.samplesFile);
  CHECK(ok[0].candidate.samplesFile->header.hooks == baseline);
}

TEST_CASE("a best worker that breaks the protocol fails the best arm") {
  Fixture f("badreply", json::object(), json{{"mode", "bad_reply"}});
  auto pairs = InterleavedRunner(counter).run(f.plan(), 0, 2, 0, CallContext{}, 0, 4);
  REQUIRE(pairs.size() == 2);
  CHECK_FALSE(pairs[0].best.ok);
  CHECK(pairs[0].best.error.find("broke the protocol") != std::string::npos);
  CHECK(assemble(pairs, kHeader, {"s1", "s2"}).bestRunFailed);
}

TEST_CASE("a worker command that does not exist fails its arm with the reason") {
  Fixture f("missing", json::object(), json::object());
  MeasurementPlan plan = f.plan();
  plan.command = std::get<Command>(parseCommand("kopt-no-such-worker-binary"));
  auto pairs = InterleavedRunner(counter).run(plan, 0, 1, 0, CallContext{}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].candidate.error.find("did not start") != std::string::npos);
  CHECK_FALSE(pairs[0].best.ok);
}

TEST_CASE("cancelling the measurement returns no pairs") {
  Fixture f("cancel", json::object(), json::object());
  CallContext ctx;
  ctx.cancel.cancel();
  CHECK(InterleavedRunner(counter).run(f.plan(), 0, 2, 0, ctx, 0, 4).empty());
}

TEST_CASE("reply envelopes: id, ok and error are checked before anything else") {
  CHECK(std::holds_alternative<json>(parseReplyEnvelope(R"({"id":3,"ok":true})", 3)));
  auto wrongId = parseReplyEnvelope(R"({"id":4,"ok":true})", 3);
  REQUIRE(std::holds_alternative<WorkerFailure>(wrongId));
  CHECK(std::get<WorkerFailure>(wrongId).kind == WorkerFailureKind::Broken);
  auto refused = parseReplyEnvelope(R"({"id":3,"ok":false,"error":"unknown shape x"})", 3);
  REQUIRE(std::holds_alternative<WorkerFailure>(refused));
  CHECK(std::get<WorkerFailure>(refused).workerUsable());
  CHECK(std::get<WorkerFailure>(refused).message == "unknown shape x");
  CHECK(std::holds_alternative<WorkerFailure>(parseReplyEnvelope("not json", 1)));
  CHECK(std::holds_alternative<WorkerFailure>(parseReplyEnvelope(R"({"id":1})", 1)));
  // The candidate's code shares its worker's process and can write to the reply channel: 200,000
  // nested arrays were a SIGSEGV of kopt (nlohmann destroys nested values recursively).
  const std::string deep = R"({"id":1,"ok":true,"x":)" + std::string(200000, '[') + std::string(200000, ']') + "}";
  auto hostile = parseReplyEnvelope(deep, 1);
  REQUIRE(std::holds_alternative<WorkerFailure>(hostile));
  CHECK(std::get<WorkerFailure>(hostile).kind == WorkerFailureKind::Broken);
  CHECK(std::get<WorkerFailure>(hostile).message.find("nest deeper than 256 levels") != std::string::npos);
  CHECK(std::holds_alternative<WorkerFailure>(parseReplyEnvelope(R"({"id":1,"ok":true,"t":1e400})", 1)));
}

TEST_CASE("batch replies: times per requested call, positive, one series per direction") {
  const json good = json::parse(
      R"({"shape":"s","errors":0,"series":[{"direction":"forward","times_ms":[1,2,3],"flops":10,"bytes":null}]})");
  auto b = parseBatch(good, "s", 3);
  REQUIRE(std::holds_alternative<BatchResult>(b));
  CHECK(std::get<BatchResult>(b).series.front().timesMs.size() == 3);
  CHECK(*std::get<BatchResult>(b).series.front().flops == 10);
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(good, "s", 4)));      // 3 times for 4 calls
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(good, "other", 3)));  // another shape's batch
  json negative = good;
  negative["series"][0]["times_ms"] = {1, -2, 3};
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(negative, "s", 3)));
  json twice = good;
  twice["series"].push_back(good["series"][0]);
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(twice, "s", 3)));
  json noErrors = good;
  noErrors.erase("errors");
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(noErrors, "s", 3)));
  // The wait for an idle GPU: optional, checked when sent.
  json waited = good;
  waited["idle_wait_ms"] = 12.5;
  waited["gpu_busy"] = true;
  auto w = parseBatch(waited, "s", 3);
  REQUIRE(std::holds_alternative<BatchResult>(w));
  CHECK(std::get<BatchResult>(w).idleWaitMs == 12.5);
  CHECK(std::get<BatchResult>(w).gpuBusy);
  CHECK_FALSE(std::get<BatchResult>(b).gpuBusy);
  waited["gpu_busy"] = "yes";
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(waited, "s", 3)));
  waited["gpu_busy"] = false;
  waited["idle_wait_ms"] = -1;
  CHECK(std::holds_alternative<WorkerFailure>(parseBatch(waited, "s", 3)));
  // The attempts the worker ran again: optional, a non-negative integer.
  CHECK(std::get<BatchResult>(b).reruns == 0);
  json rerun = good;
  rerun["reruns"] = 2;
  auto r = parseBatch(rerun, "s", 3);
  REQUIRE(std::holds_alternative<BatchResult>(r));
  CHECK(std::get<BatchResult>(r).reruns == 2);
  for (const json bad : {json(-1), json(1.5), json("2")}) {
    rerun["reruns"] = bad;
    CHECK(std::holds_alternative<WorkerFailure>(parseBatch(rerun, "s", 3)));
  }
}

TEST_CASE("hello and prepare replies are checked field by field") {
  auto h = parseHello(json::parse(R"({"protocol":1,"csv_header":"label,B","shapes":["a","b"],"harness":"h"})"));
  REQUIRE(std::holds_alternative<WorkerHello>(h));
  CHECK(std::get<WorkerHello>(h).shapes.size() == 2);
  CHECK(std::holds_alternative<WorkerFailure>(parseHello(json::parse(R"({"protocol":2,"csv_header":"x","shapes":[]})"))));
  CHECK(std::holds_alternative<WorkerFailure>(parseHello(json::parse(R"({"protocol":1,"shapes":[]})"))));
  auto hooked = parseHello(json::parse(R"({"protocol":1,"csv_header":"label,B","shapes":["a"],"hooks":"f00d"})"));
  REQUIRE(std::holds_alternative<WorkerHello>(hooked));
  CHECK(std::get<WorkerHello>(hooked).hooks == "f00d");
  CHECK(std::holds_alternative<WorkerFailure>(
      parseHello(json::parse(R"({"protocol":1,"csv_header":"label,B","shapes":["a"],"hooks":7})"))));
  auto p = parsePrepared(json::parse(R"({"shape":"a","check":"PASS","call_ms":{"forward":0.5,"backward":1.0}})"), "a");
  REQUIRE(std::holds_alternative<PreparedShape>(p));
  CHECK(std::get<PreparedShape>(p).stepMs() == doctest::Approx(1.5));
  CHECK(std::holds_alternative<WorkerFailure>(parsePrepared(json::parse(R"({"shape":"a","check":"PASS"})"), "a")));
  CHECK(std::holds_alternative<WorkerFailure>(
      parsePrepared(json::parse(R"({"shape":"a","check":"MAYBE","call_ms":{"forward":1}})"), "a")));
  CHECK(std::holds_alternative<WorkerFailure>(
      parsePrepared(json::parse(R"({"shape":"a","check":"PASS","call_ms":{"sideways":1}})"), "a")));
  CHECK(std::holds_alternative<WorkerFailure>(parseRow(json::parse(R"({"shape":"a","row":"x\ny"})"), "a")));
  // The optional autotune map: kernel -> config; anything else than an object is a broken reply.
  auto tuned = parsePrepared(
      json::parse(R"({"shape":"a","check":"PASS","call_ms":{"forward":1},"autotune":{"_bwd":"BLOCK: 2","_fwd":{"w":4}}})"), "a");
  REQUIRE(std::holds_alternative<PreparedShape>(tuned));
  CHECK(std::get<PreparedShape>(tuned).autotune.at("_bwd") == "BLOCK: 2");
  CHECK(std::get<PreparedShape>(tuned).autotune.at("_fwd") == R"({"w":4})");
  CHECK(std::holds_alternative<WorkerFailure>(
      parsePrepared(json::parse(R"({"shape":"a","check":"PASS","call_ms":{"forward":1},"autotune":"x"})"), "a")));
}

TEST_CASE("the optional warm request: offered in hello, its reply checked field by field") {
  CHECK_FALSE(std::get<WorkerHello>(parseHello(json::parse(R"({"protocol":1,"csv_header":"l","shapes":["a"]})"))).warms);
  CHECK(std::get<WorkerHello>(parseHello(json::parse(R"({"protocol":1,"csv_header":"l","shapes":["a"],"warm":true})"))).warms);
  CHECK(std::holds_alternative<WorkerFailure>(
      parseHello(json::parse(R"({"protocol":1,"csv_header":"l","shapes":["a"],"warm":"yes"})"))));
  auto w = parseWarmed(json::parse(R"({"shape":"a","check":"FAIL","ms":612.5})"), "a");
  REQUIRE(std::holds_alternative<WarmedShape>(w));
  CHECK((std::get<WarmedShape>(w).check == measure::Check::Fail));
  CHECK(std::get<WarmedShape>(w).ms == doctest::Approx(612.5));
  CHECK(std::holds_alternative<WorkerFailure>(parseWarmed(json::parse(R"({"shape":"b","check":"PASS","ms":1})"), "a")));
  CHECK(std::holds_alternative<WorkerFailure>(parseWarmed(json::parse(R"({"shape":"a","check":"PASS"})"), "a")));
  CHECK(std::holds_alternative<WorkerFailure>(parseWarmed(json::parse(R"({"shape":"a","check":"PASS","ms":-1})"), "a")));
  // A warm reply read where none was asked for is the caller's mistake, not the worker's.
  BenchWorker idle("candidate");
  auto none = idle.finishWarm(std::chrono::milliseconds(10), CancellationToken{});
  REQUIRE(std::holds_alternative<WorkerFailure>(none));
  CHECK(std::get<WorkerFailure>(none).message.find("no warm request") != std::string::npos);
}

}  // namespace kopt::campaign
