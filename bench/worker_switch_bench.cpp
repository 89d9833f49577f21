// What kopt's interleaved runner spends per batch on process control, outside the workers: the
// idle arm's stop confirmed (every thread in state T), the arm resumed, one request answered, the
// arm stopped again. The workers are Python processes with `threads` idle threads each, like a
// torch worker (the H200 workers hold 20-60 threads). Prints the median and p90 of the wall time
// of one switch (resume, echo, stop, the other's stop confirmed) and of its parts.
//   kopt_bench_worker_switch [switches=400] [threads=48]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exec/worker_process.h"

using namespace kopt::exec;
using Clock = std::chrono::steady_clock;

namespace {

double usSince(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

struct Stats {
  std::vector<double> us;
  void print(const char* what) {
    std::sort(us.begin(), us.end());
    const auto at = [&](double q) { return us[static_cast<std::size_t>(q * static_cast<double>(us.size() - 1))]; };
    std::printf("%-34s median %8.1f us   p90 %8.1f us   max %8.1f us\n", what, at(0.5), at(0.9), us.back());
  }
};

// An echo worker with idle threads: answers each line with the same line.
const char* kWorker =
    "import sys, threading\n"
    "n = int(sys.argv[1])\n"
    "ev = threading.Event()\n"
    "for _ in range(n): threading.Thread(target=ev.wait, daemon=True).start()\n"
    "print('hello', flush=True)\n"
    "for line in sys.stdin: sys.stdout.write(line); sys.stdout.flush()\n";

}  // namespace

int main(int argc, char** argv) {
  const int switches = argc > 1 ? std::atoi(argv[1]) : 400;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 48;
  WorkerProcess arms[2];
  for (int a = 0; a < 2; ++a) {
    WorkerSpec spec;
    spec.argv = {"python3", "-c", kWorker, std::to_string(threads)};
    spec.stderrPath = "/dev/null";
    if (!arms[a].start(spec)) {
      std::fprintf(stderr, "could not start python3: %s\n", arms[a].error().c_str());
      return 1;
    }
    std::string line;
    if (arms[a].readLine(line, std::chrono::seconds(30), kopt::CancellationToken{}) != LineStatus::Line) return 1;
    arms[a].stop();
  }
  Stats total, confirm, resume, echo, stop;
  for (int i = 0; i < switches; ++i) {
    const int a = (i / 2) % 2;  // ABBA-like: each arm twice in a row, as in blocks
    const auto t0 = Clock::now();
    auto t = Clock::now();
    if (!arms[1 - a].allStopped()) {
      std::fprintf(stderr, "the idle arm did not stop\n");
      return 1;
    }
    confirm.us.push_back(usSince(t));
    t = Clock::now();
    arms[a].resume();
    resume.us.push_back(usSince(t));
    t = Clock::now();
    std::string line;
    if (!arms[a].writeLine("{\"op\":\"batch\"}") ||
        arms[a].readLine(line, std::chrono::seconds(10), kopt::CancellationToken{}) != LineStatus::Line) {
      return 1;
    }
    echo.us.push_back(usSince(t));
    t = Clock::now();
    arms[a].stop();
    stop.us.push_back(usSince(t));
    total.us.push_back(usSince(t0));
  }
  std::printf("%d switches, workers with %d idle threads each\n", switches, threads);
  total.print("one switch (all of the below)");
  confirm.print("the idle arm's stop confirmed");
  resume.print("resume (SIGCONT to the session)");
  echo.print("one request answered");
  stop.print("stop (SIGSTOP to the session)");
  for (auto& arm : arms) arm.terminate();
  return 0;
}
