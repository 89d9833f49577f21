#include "campaign/interleaved_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <system_error>

#include <nlohmann/json.hpp>

#include "campaign/batch_sizing_memo.h"
#include "campaign/campaign_env.h"
#include "campaign/bench_worker.h"
#include "campaign/harness_hooks.h"
#include "campaign/spare_workers.h"
#include "exec/cpu_affinity.h"
#include "exec/stray_processes.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<bool> blockOrder(int index) {
  if (index % 2 == 0) return {true, false, false, true};
  return {false, true, true, false};
}

int callsPerBatch(double stepMs, double batchMs) {
  if (!(stepMs > 0) || !std::isfinite(stepMs)) return 3;
  const double calls = std::round(batchMs / stepMs);
  return static_cast<int>(std::clamp(calls, 3.0, 4096.0));
}

namespace {

enum Arm { kCandidate = 0, kBest = 1 };
const char* armName(int arm) { return campaign::armName(arm == kCandidate); }

// One arm's calls of one block: per shape and direction, both of its batches together.
struct BlockSamples {
  std::vector<measure::SampleSeries> series;
  void add(const measure::SampleSeries& s) {
    for (auto& have : series) {
      if (have.label == s.label && have.direction == s.direction) {
        have.timesMs.insert(have.timesMs.end(), s.timesMs.begin(), s.timesMs.end());
        return;
      }
    }
    series.push_back(s);
  }
};

std::string samplesText(const WorkerHello& hello, std::uint64_t seed, const BlockSamples& block) {
  json head{{"kopt_samples", 1}, {"harness", hello.harness}, {"device", hello.device}, {"seed", seed}};
  if (!hello.hooks.empty()) head["hooks"] = hello.hooks;
  std::string out = head.dump() + "\n";
  for (const auto& s : block.series) {
    json line{{"label", s.label}, {"direction", measure::toString(s.direction)}, {"unit", "ms"}, {"times", s.timesMs}};
    line["flops"] = s.flops ? json(*s.flops) : json(nullptr);
    line["bytes"] = s.bytes ? json(*s.bytes) : json(nullptr);
    out += line.dump() + "\n";
  }
  return out;
}

struct ArmState {
  std::unique_ptr<BenchWorker> worker;
  WorkerHello hello;
  bool started = false;
  std::string error;  // the arm failed: every block of it is not ok
  std::vector<std::string> rows;
  std::vector<std::string> problems;  // per-shape notes (a FAIL prepare, batch errors)
};

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// {"candidate": {"median": m, "max": x, "batches": n, "waited_ms": w, "batches_waited": k}, "best": ...}
// of each arm's idle probes and its waits for an idle GPU; null without any probe.
json probeSummary(const std::vector<double> (&probes)[2], const std::vector<double> (&waits)[2]) {
  json out = json::object();
  for (int a : {kCandidate, kBest}) {
    std::vector<double> v = probes[a];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    double waited = 0;
    int batchesWaited = 0;
    for (double w : waits[a]) {
      waited += w;
      batchesWaited += w > 0 ? 1 : 0;
    }
    out[armName(a)] = {{"median", v[v.size() / 2]}, {"max", v.back()}, {"batches", v.size()},
                       {"waited_ms", waited}, {"batches_waited", batchesWaited}};
  }
  return out.empty() ? json(nullptr) : out;
}

// Where one worker session's time went, written beside its logs as <stem>-timing.json: what a
// look costs is start-up and preparation more than timed batches (docs/performance.md).
struct SessionTiming {
  double startMs = 0;  // both workers started until both said hello
  double warmMs = 0;   // the workers' warm-up, spares for later sessions included (all at once)
  std::vector<std::string> spares;  // the arms whose workers were started ahead
  struct Shape {
    std::string shape;
    double prepareMs = 0, blocksMs = 0, rowMs = 0;
    double batchWallMs = 0;    // the workers' timed part of each batch (spin, calls, checks, the one read)
    double batchHandleMs = 0;  // the workers' whole time on each batch request; blocksMs less this is kopt's
    double strayScanMs = 0;  // kopt's scans for processes that left a worker's session, one a block
    double stopCheckMs = 0;  // kopt's checks that the idle worker's processes all stopped, one a batch
    // Per arm, each batch's idle probe (a tiny kernel's launch-to-sync latency just before the
    // batch, GPU harnesses: how quiet the GPU was when the other arm had just been stopped) and
    // how long the worker waited for the GPU to go idle first.
    std::vector<double> idleProbeUs[2], idleWaitMs[2];
    // Per arm, the batch attempts its worker discarded and ran again (allocator events, a time
    // that is not positive and finite): an arm with many more than the other's may be choosing
    // which of its batches count.
    long long reruns[2] = {0, 0};
    // Per arm, the config each autotuned kernel ran (the harness pins it per tree: two arms of one
    // tree, as in the A/A, should agree).
    std::map<std::string, std::string> autotune[2];
    double stepMs = 0;  // the best's cost of one call of every direction that sized the batches
    int callsPerBatch = 0;  // batch_ms / stepMs, at least 3: a step above batch_ms / 3 shows as 3
    bool sizedFromMemo = false;  // the batches were sized from an earlier look of the same best build
  };
  std::vector<Shape> shapes;
  double closeMs = 0, totalMs = 0;
  json toJson() const {
    json out{{"start_ms", startMs}, {"warm_ms", warmMs}, {"spare_workers", spares}, {"close_ms", closeMs}, {"total_ms", totalMs},
             {"shapes", json::array()}};
    for (const auto& s : shapes) {
      out["shapes"].push_back({{"shape", s.shape},
                               {"prepare_ms", s.prepareMs},
                               {"blocks_ms", s.blocksMs},
                               {"batch_wall_ms", s.batchWallMs},
                               {"batch_handle_ms", s.batchHandleMs},
                               {"row_ms", s.rowMs},
                               {"stray_scan_ms", s.strayScanMs},
                               {"stop_check_ms", s.stopCheckMs},
                               {"idle_probe_us", probeSummary(s.idleProbeUs, s.idleWaitMs)},
                               {"reruns", {{"candidate", s.reruns[kCandidate]}, {"best", s.reruns[kBest]}}},
                               {"autotune", {{"candidate", s.autotune[kCandidate]}, {"best", s.autotune[kBest]}}},
                               {"step_ms", s.stepMs},
                               {"calls_per_batch", s.callsPerBatch},
                               {"sized_from_memo", s.sizedFromMemo}});
    }
    return out;
  }
};

}  // namespace

exec::WorkerSpec armWorkerSpec(const MeasurementPlan& plan, bool candidate, const fs::path& log) {
  exec::ParsedCommand cmd = expandPlaceholders(plan.command, candidate ? plan.candidatePlaceholders : plan.bestPlaceholders);
  exec::WorkerSpec spec;
  spec.argv = cmd.argv;
  spec.argv.push_back("--serve");
  spec.env = cmd.env;
  addCampaignEnvironment(spec.env, candidate ? plan.candidatePlaceholders : plan.bestPlaceholders);
  // kopt's count, not the command's: only kopt knows how many workers it keeps on the device.
  spec.env[kWorkersOnDeviceEnv] = std::to_string(std::max(1, plan.workersOnDevice));
  spec.cwd = candidate ? plan.candidateTree : plan.bestTree;
  spec.stderrPath = log;
  // Not pinned yet: both workers start up in parallel on any CPU kopt may use, and are pinned to
  // the look's CPU once both said hello (run() below).
  return spec;
}

const std::string& armBuild(const MeasurementPlan& plan, bool candidate) {
  return candidate ? plan.candidateBuild : plan.bestBuild;
}

const char* armName(bool candidate) { return candidate ? "candidate" : "best"; }

std::string sessionStem(const std::string& tag, int session) { return tag + "-s" + std::to_string(session); }

std::vector<PairRun> InterleavedRunner::run(const MeasurementPlan& plan, int first, int count, int session,
                                            const CallContext& ctx, double progressBase, double progressTotal) {
  std::error_code ec;
  fs::create_directories(plan.runsDir, ec);
  const std::string stem = sessionStem(plan.tag, session);
  ArmState arms[2];
  const auto timeout = plan.timeout;
  const CancellationToken& cancel = ctx.cancel;

  std::optional<int> workerCpu = plan.workerCpu;
  if (!workerCpu && plan.pickWorkerCpu) workerCpu = exec::quietBenchWorkerCpu();
  const auto t0 = Clock::now();
  SessionTiming timing;
  // Start both workers (or take the ones run_tests started ahead for this look), then learn their
  // headers and shape sets: both start up at once (Python, torch and a JIT's start-up take
  // seconds). The best's shape set is the default one: it is the trusted reference, the candidate
  // is asked for each of its shapes.
  exec::WorkerSpec specs[2];
  for (int a : {kBest, kCandidate}) {
    ArmState& arm = arms[a];
    specs[a] = armWorkerSpec(plan, a == kCandidate, plan.runsDir / (stem + "-" + armName(a) + ".log"));
    // Only a spare of this very build is taken (an empty build names none: never).
    const std::string& build = armBuild(plan, a == kCandidate);
    if (!build.empty() && (arm.worker = SpareWorkers::shared().take(armName(a), specs[a], build, stem))) {
      arm.started = true;
      timing.spares.push_back(armName(a));
    }
  }
  // Whatever was started ahead and not taken ends before this look starts anything, but the
  // spares kept for this measurement's later sessions (run_baseline's A/A).
  const std::string laterSessions = plan.tag + "-s";
  SpareWorkers::shared().clear(
      [&](const std::string& look) { return look != stem && look.compare(0, laterSessions.size(), laterSessions) == 0; });
  for (int a : {kBest, kCandidate}) {
    ArmState& arm = arms[a];
    if (arm.started) continue;
    arm.worker = std::make_unique<BenchWorker>(armName(a));
    std::string err;
    if (!arm.worker->start(specs[a], err)) {
      arm.error = "the " + std::string(armName(a)) + " worker did not start: " + err;
      continue;
    }
    arm.started = true;
  }
  for (int a : {kBest, kCandidate}) {
    ArmState& arm = arms[a];
    if (!arm.started) continue;
    auto hello = arm.worker->hello(timeout, cancel);
    if (auto* f = std::get_if<WorkerFailure>(&hello)) {
      arm.error = f->message;
      continue;
    }
    arm.hello = std::get<WorkerHello>(hello);
    arm.worker->process().stop();
  }
  // A candidate measured against its own rewritten reference or input draw gains nothing: refused
  // before anything is timed.
  if (arms[kCandidate].error.empty() && arms[kBest].error.empty()) {
    if (auto refusal = changedHooksRefusal(arms[kCandidate].hello.hooks, arms[kBest].hello.hooks)) {
      arms[kCandidate].error = *refusal;
    }
  }
  timing.startMs = msSince(t0);
  std::vector<std::string> shapes = plan.shapes;
  if (shapes.empty()) shapes = arms[kBest].hello.shapes;
  // Every worker's first use of the kernel and of the harness's checks (a JIT's load and first
  // launches: 0.6-0.7 s of each Triton RMSNorm worker's first prepare on an H100, twenty-first
  // session), untimed and in all of them at once: this look's two and the spares kept for its later
  // sessions. Here, once the tests are over and before anything is timed; run one worker at a time
  // in each prepare, it was 3.6 s of a baseline. Warming at start-up instead ran beside the tests
  // and failed them. A spare taken from an earlier look warmed there.
  const auto warming = Clock::now();
  std::optional<WarmRequest> warm;
  if (!shapes.empty() && arms[kCandidate].error.empty() && arms[kBest].error.empty()) {
    warm = WarmRequest{shapes.front(), seeds_()};
  }
  bool warmSent[2] = {false, false};
  for (int a : {kBest, kCandidate}) {
    ArmState& arm = arms[a];
    if (!warm || !arm.hello.warms || arm.worker->warmed()) continue;
    arm.worker->process().resume();
    if (auto f = arm.worker->startWarm(*warm)) {
      arm.error = f->message;
    } else {
      warmSent[a] = true;
    }
  }
  // The spares kept for later sessions are through their start-up (GPU context, kernel module,
  // the harness's first use) and warm-up, and stopped before this look times anything.
  SpareWorkers::shared().settle(timeout, cancel, warm);
  for (int a : {kBest, kCandidate}) {
    if (!warmSent[a]) continue;
    ArmState& arm = arms[a];
    auto reply = arm.worker->finishWarm(timeout, cancel);
    if (auto* f = std::get_if<WorkerFailure>(&reply); f && !f->workerUsable()) arm.error = f->message;
    arm.worker->process().stop();
  }
  timing.warmMs = msSince(warming);
  // From here on both workers share workerCpu (one runs at a time). Pinned now, while both are
  // stopped, so that no thread escapes the mask: start-up ran on any CPU kopt may use.
  if (workerCpu) {
    for (int a : {kBest, kCandidate}) {
      ArmState& arm = arms[a];
      if (!arm.started || !arm.error.empty()) continue;
      if (!arm.worker->process().pinTo({*workerCpu})) {
        arm.error = "the " + std::string(armName(a)) + " worker's processes could not be pinned to CPU " +
                    std::to_string(*workerCpu);
      }
    }
  }

  // Per block index (relative to `first`) and arm, the calls it measured.
  std::vector<std::array<BlockSamples, 2>> blocks(static_cast<std::size_t>(std::max(0, count)));
  std::vector<std::uint64_t> blockSeeds;
  for (int i = 0; i < count; ++i) blockSeeds.push_back(seeds_());

  const double shareTotal = std::max<double>(1.0, static_cast<double>(shapes.size()) * std::max(1, count));
  double done = 0;
  auto progress = [&](const std::string& msg) {
    ctx.report(progressBase + 2.0 * count * (done / shareTotal), progressTotal, msg);
  };

  auto failed = [&]() { return !arms[kCandidate].error.empty() || !arms[kBest].error.empty() || cancel.cancelled(); };
  // The other arm must not run on the CPU or queue device work while arm `a` prepares or runs a
  // batch: SIGSTOP is delivered asynchronously, so this waits until every process of it stopped.
  auto otherStopped = [&](int a) {
    ArmState& idle = arms[1 - a];
    if (!idle.started || idle.worker->process().allStopped()) return true;
    idle.error = "the " + std::string(armName(1 - a)) +
                 " worker's processes did not all stop between requests (a process left its session?)";
    return false;
  };
  auto request = [&](int a, auto&& fn) -> bool {
    ArmState& arm = arms[a];
    arm.worker->process().resume();
    auto reply = fn(*arm.worker);
    if (auto* f = std::get_if<WorkerFailure>(&reply)) {
      if (!f->workerUsable()) {
        arm.error = f->message;
        return false;
      }
      arm.problems.push_back(f->message);
      arm.worker->process().stop();
      return false;
    }
    arm.worker->process().stop();
    return true;
  };

  // The arm whose request ran last (-1: none yet). A GPU still busy when the other arm's batch
  // starts is work that arm left running past its reply (the harness waits for an idle GPU before
  // its calls, up to a cap, and says when the cap ran out): the candidate's is refused; anything
  // else (the best's own leftovers, another process) is noted with the arm.
  int lastArm = -1;
  auto busyGpu = [&](int a, const std::string& shape) {
    if (a == kBest && lastArm == kCandidate) {
      arms[kCandidate].error = "the measurement is refused: the GPU stayed busy before the best's batch of " + shape +
                               ", right after the candidate's turn: work the candidate left running past its reply "
                               "slows the best's calls (or another process used the GPU)";
    } else {
      arms[a].problems.push_back(shape + ": the GPU stayed busy before a " + armName(a) +
                                 " batch (another process on the GPU?)");
    }
  };

  for (const auto& shape : shapes) {
    if (failed()) break;
    const std::uint64_t shapeSeed = seeds_();
    PreparedShape prepared[2];
    bool pass[2] = {false, false};
    SessionTiming::Shape shapeTiming{shape};
    auto phase = Clock::now();
    // The best's cost per call sizes the batches: measured by its prepare's long sizing batch the
    // first time this build runs the shape, remembered from then on.
    const std::optional<double> knownStepMs = BatchSizingMemo::shared().stepMs(plan.bestIdentity, shape);
    // Both arms warm up alike, the sizing batch included when the best's is measured: only the
    // best's number sizes the batches, but a worker's later batches depend on what ran before
    // them (on an H100 whole batches read 12-15 % slow at the same places in every fresh session,
    // and at other places for the arm that had run one batch less: an A/A "bias" of -1.87 %).
    const WarmUp warmUp = knownStepMs ? WarmUp::WarmOnly : WarmUp::SizeBatches;
    // One worker at a time: prepare ends in timed, verified warm-up batches, and a GPU shared with
    // the other worker's prepare reads its time slices (an H200 run failed honest shapes that way:
    // "work escaped the timed stream").
    for (int a : {kBest, kCandidate}) {
      if (!otherStopped(a)) break;
      request(a, [&](BenchWorker& w) {
        auto r = w.prepare(shape, shapeSeed, warmUp, timeout, cancel);
        if (auto* p = std::get_if<PreparedShape>(&r)) {
          prepared[a] = *p;
          shapeTiming.autotune[a] = p->autotune;
          pass[a] = p->check == measure::Check::Pass;
          if (!pass[a]) {
            arms[a].problems.push_back(shape + ": " + measure::toString(p->check) + (p->problem.empty() ? "" : ": " + p->problem));
          }
        }
        return r;
      });
      lastArm = a;
      if (failed()) break;
    }
    shapeTiming.prepareMs = msSince(phase);
    phase = Clock::now();
    if (failed()) break;
    // Only a shape both arms got right is timed: a failing candidate shape is a verdict already.
    if (pass[kCandidate] && pass[kBest]) {
      if (!knownStepMs) BatchSizingMemo::shared().remember(plan.bestIdentity, shape, prepared[kBest].stepMs());
      shapeTiming.stepMs = knownStepMs.value_or(prepared[kBest].stepMs());
      const int calls = callsPerBatch(shapeTiming.stepMs, plan.batchMs);
      shapeTiming.callsPerBatch = calls;
      shapeTiming.sizedFromMemo = knownStepMs.has_value();
      long long errors[2] = {0, 0};
      for (int i = 0; i < count && !failed(); ++i) {
        const int index = first + i;
        // A process that left a worker's session (setsid, double fork) is neither stopped with its
        // arm nor ended with it, and could slow the other arm: end it and refuse the look. The best
        // passed these checks when it was the candidate; the code under test is the candidate's.
        const auto scanning = Clock::now();
        const auto strays = exec::endStrayProcesses();
        shapeTiming.strayScanMs += msSince(scanning);
        if (!strays.empty()) {
          arms[kCandidate].error = "the measurement is refused: " + exec::strayText(strays) +
                                   " (found between the blocks of " + shape + ")";
          break;
        }
        for (bool candidateTurn : blockOrder(index)) {
          const int a = candidateTurn ? kCandidate : kBest;
          const auto checking = Clock::now();
          const bool idleStopped = otherStopped(a);
          shapeTiming.stopCheckMs += msSince(checking);
          if (!idleStopped) break;
          const std::uint64_t batchSeed = seeds_();
          const bool ok = request(a, [&](BenchWorker& w) {
            auto r = w.batch(shape, calls, batchSeed, timeout, cancel);
            if (auto* b = std::get_if<BatchResult>(&r)) {
              errors[a] += b->errors;
              shapeTiming.batchWallMs += b->wallMs;
              shapeTiming.batchHandleMs += b->handleMs.value_or(0);
              if (b->idleProbeUs) shapeTiming.idleProbeUs[a].push_back(*b->idleProbeUs);
              shapeTiming.idleWaitMs[a].push_back(b->idleWaitMs);
              shapeTiming.reruns[a] += b->reruns;
              if (b->gpuBusy) busyGpu(a, shape);
              for (const auto& s : b->series) blocks[static_cast<std::size_t>(i)][a].add(s);
            }
            return r;
          });
          lastArm = a;
          if (!ok || failed()) break;
        }
        done += 1;
        progress(shape + ": block " + std::to_string(i + 1) + "/" + std::to_string(count));
        // A shape with failed calls has its verdict (FAIL): more timing would not change it.
        if (errors[kCandidate] > 0 || errors[kBest] > 0) break;
      }
      for (int a : {kCandidate, kBest}) {
        if (errors[a] > 0) {
          arms[a].problems.push_back(shape + ": " + std::to_string(errors[a]) + " timed call(s) failed verification");
        }
      }
    }
    shapeTiming.blocksMs = msSince(phase);
    phase = Clock::now();
    if (failed()) break;
    for (int a : {kBest, kCandidate}) {
      request(a, [&](BenchWorker& w) {
        auto r = w.row(shape, timeout, cancel);
        if (auto* row = std::get_if<std::string>(&r)) arms[a].rows.push_back(*row);
        return r;
      });
      if (failed()) break;
    }
    shapeTiming.rowMs = msSince(phase);
    timing.shapes.push_back(shapeTiming);
  }
  const auto closing = Clock::now();
  for (auto& arm : arms) {
    if (arm.started) arm.worker->sendQuit();
  }
  for (auto& arm : arms) {
    if (!arm.started) continue;
    const std::string exit = arm.worker->close();
    if (arm.error.empty() && !cancel.cancelled() && exit != "exited 0") {
      arm.error = "the " + arm.worker->arm() + " worker did not exit cleanly after quit (" + exit + ")";
    }
  }
  // Once more after both workers are gone: a daemon forked late in the last shape (its setsid
  // racing the block checks) is found here, and the look is refused as above.
  if (const auto strays = exec::endStrayProcesses(); !strays.empty() && arms[kCandidate].error.empty()) {
    arms[kCandidate].error = "the measurement is refused: " + exec::strayText(strays) + " (found after the look)";
  }
  timing.closeMs = msSince(closing);
  timing.totalMs = msSince(t0);
  util::writeFileAtomic(plan.runsDir / (stem + "-timing.json"), timing.toJson().dump(1) + "\n");

  // Files: each arm's table, each block's samples; then read them back like process runs.
  fs::path csv[2];
  for (int a : {kCandidate, kBest}) {
    csv[a] = plan.runsDir / (stem + "-" + armName(a) + ".csv");
    fs::remove(csv[a], ec);
    if (!arms[a].hello.csvHeader.empty()) {
      std::string text = arms[a].hello.csvHeader + "\n";
      for (const auto& r : arms[a].rows) text += r + "\n";
      util::writeFileAtomic(csv[a], text);
    }
  }
  std::vector<PairRun> out;
  if (cancel.cancelled()) return out;
  for (int i = 0; i < count; ++i) {
    PairRun pair;
    pair.index = first + i;
    pair.session = session;
    pair.seed = blockSeeds[static_cast<std::size_t>(i)];
    pair.candidateFirst = blockOrder(pair.index).front();
    for (int a : {kCandidate, kBest}) {
      const fs::path samples = plan.runsDir / (plan.tag + "-b" + std::to_string(pair.index) + "-" + armName(a) + ".samples.jsonl");
      util::writeFileAtomic(samples, samplesText(arms[a].hello, pair.seed, blocks[static_cast<std::size_t>(i)][a]));
      ArmRun run = loadArmRun(plan, armName(a), csv[a], samples);
      run.log = plan.runsDir / (stem + "-" + armName(a) + ".log");
      run.outcome = arms[a].error.empty() ? "exited" : "failed";
      run.exitCode = arms[a].error.empty() ? 0 : 1;
      if (!arms[a].error.empty()) {
        run.ok = false;
        run.error = arms[a].error;
      } else if (!run.ok && !arms[1 - a].error.empty()) {
        // This arm was healthy, but the measurement stopped before it reported a row.
        run.error = "not measured: " + arms[1 - a].error;
      } else if (!arms[a].problems.empty() && run.error.empty()) {
        run.error = util::join(arms[a].problems, "; ");  // FAIL rows say it too; ok stays the table's
      }
      (a == kCandidate ? pair.candidate : pair.best) = std::move(run);
    }
    out.push_back(std::move(pair));
  }
  return out;
}

}  // namespace kopt::campaign
