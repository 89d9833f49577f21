#pragma once
// Bench workers started ahead of the look that will use them. A Python worker spends 2.8-4.0 s on
// the H200 importing torch and Triton before it can answer (docs/gpu-validation.md, thirteenth and
// fifteenth sessions), and a validated round's first look waited for both arms' start-up: a
// quarter of its time. run_tests therefore offers both arms' workers for the coming
// validate_round as the tests start, and the look takes them instead of starting its own.
//
// A spare is taken only by a look that would have started exactly it: the same command line,
// environment and working directory, and the same `identity` of the arm's build (the candidate's
// kernel files and recorded build, the best's commit). A spare offered for the next look (no
// `look` named) ends with every look that starts, so it never sits beside timed batches while it
// starts up. run_baseline also offers every worker of its A/A sessions at once, each kept
// for its own session's look (`look`: interleaved_runner.h sessionStem): those that wait for a
// later session of the same measurement are made to finish starting up, warm up together with the
// look's own workers, and are stopped (settle()) before a look times anything, so they sit beside
// its batches as the idle arm does.
// Local workers only (exec/worker_process.h).
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "campaign/bench_worker.h"
#include "exec/worker_process.h"
#include "util/cancellation.h"

namespace kopt::campaign {

class SpareWorkers {
 public:
  // The process's one set. Never destroyed: a spare left at exit reads EOF on its stdin and ends
  // itself, and no static it would need in a destructor can be gone before it.
  static SpareWorkers& shared();

  // Starts a worker for `spec` now (its log at spec.stderrPath), for the next look (`look` empty)
  // or for the look named `look`, of the same `arm` name, whose spec and identity match. An
  // earlier spare of that arm and look is ended first. False with `error` when it did not start.
  bool offer(const std::string& arm, const exec::WorkerSpec& spec, const std::string& identity, std::string& error,
             const std::string& look = "");

  // The spare offered for exactly this spec (but its log path) and identity, for the look named
  // `look` or for the next look, its log moved to spec.stderrPath; nullptr when there is none (or
  // its log could not be moved: it is ended).
  std::unique_ptr<BenchWorker> take(const std::string& arm, const exec::WorkerSpec& spec, const std::string& identity,
                                    const std::string& look = "");

  // Ends every spare not taken, but those kept for a look whose name `keep` accepts.
  void clear(const std::function<bool(const std::string& look)>& keep = nullptr);

  // Waits (each at most `timeout`) until every spare not yet settled has started up and said
  // hello, then stops it; a spare that fails to is ended. With `warm`, each spare whose hello
  // offers it first warms up (BenchWorker::startWarm), all of them at once, and is stopped when it
  // answered: the caller's own workers may be warming at the same time. False when `cancel` fired:
  // the unsettled rest are ended too.
  bool settle(std::chrono::milliseconds timeout, const CancellationToken& cancel,
              const std::optional<WarmRequest>& warm = std::nullopt);

  // The spares' process ids (tests).
  std::vector<pid_t> pids();

 private:
  struct Spare {
    std::string arm;
    std::string look;  // empty: the next look
    exec::WorkerSpec spec;
    std::string identity;
    std::unique_ptr<BenchWorker> worker;
    bool settled = false;  // said hello and was stopped (settle()); a later look leaves it be
  };
  std::mutex mutex_;
  std::vector<Spare> spares_;
};

// True when `a` and `b` start the same worker: argv, environment and working directory (the log
// path and the CPU pin are the look's own).
bool sameWorker(const exec::WorkerSpec& a, const exec::WorkerSpec& b);

}  // namespace kopt::campaign
