#pragma once
// Bench workers started ahead of the look that will use them. A Python worker spends 2.8-4.0 s on
// the H200 importing torch and Triton before it can answer (docs/gpu-validation.md, thirteenth and
// fifteenth sessions), and a validated round's first look waited for both arms' start-up: a
// quarter of its time. run_tests therefore offers both arms' workers for the coming
// validate_round as the tests start, and the look takes them instead of starting its own.
//
// A spare is taken only by a look that would have started exactly it: the same command line,
// environment and working directory, and the same `identity` of the arm's build (the candidate's
// kernel files and recorded build, the best's commit). Anything else ends it, and so does every
// look that starts: no spare outlives the look after it, so none sits beside timed batches.
// Local workers only (exec/worker_process.h).
#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "campaign/bench_worker.h"
#include "exec/worker_process.h"

namespace kopt::campaign {

class SpareWorkers {
 public:
  // The process's one set. Never destroyed: a spare left at exit reads EOF on its stdin and ends
  // itself, and no static it would need in a destructor can be gone before it.
  static SpareWorkers& shared();

  // Starts a worker for `spec` now (its log at spec.stderrPath), for the next look of the same
  // `arm` name whose spec and identity match. An earlier spare of that arm is ended first. False
  // with `error` when it did not start.
  bool offer(const std::string& arm, const exec::WorkerSpec& spec, const std::string& identity, std::string& error);

  // The spare offered for exactly this spec (but its log path) and identity, its log moved to
  // spec.stderrPath; nullptr when there is none (or its log could not be moved: it is ended).
  std::unique_ptr<BenchWorker> take(const std::string& arm, const exec::WorkerSpec& spec, const std::string& identity);

  // Ends every spare not taken.
  void clear();

  // The spares' process ids (tests).
  std::vector<pid_t> pids();

 private:
  struct Spare {
    std::string arm;
    exec::WorkerSpec spec;
    std::string identity;
    std::unique_ptr<BenchWorker> worker;
  };
  std::mutex mutex_;
  std::vector<Spare> spares_;
};

// True when `a` and `b` start the same worker: argv, environment and working directory (the log
// path and the CPU pin are the look's own).
bool sameWorker(const exec::WorkerSpec& a, const exec::WorkerSpec& b);

}  // namespace kopt::campaign
