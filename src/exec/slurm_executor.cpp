// The Slurm backend. Two ways to run a command, one contract (executor.h):
//  - srun: the local executor runs `srun <flags> argv...`; srun streams the task's output into the
//    requested files and returns its exit code. A monitor thread watches the job in squeue, so a
//    dead node or an impossible request ends the wait instead of hanging srun.
//  - sbatch: a batch job writes its output straight to the requested paths (a shared file system,
//    as on every Slurm cluster); kopt polls squeue, then reads the end state and exit code from
//    `scontrol show job`. It survives a flaky login-node connection and long queue waits.
// In both, kopt keeps its own timer (Slurm limits are whole minutes, checked every 30 s; --time is
// only a backstop), cancels with scancel and waits until Slurm confirms the job is over, so the
// job's processes are gone when run() returns. A lost node is RunOutcome::Lost, never a result.
//
// Hang detection on Slurm sees output growth only: the job's CPU time is on another machine.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "exec/output_tail.h"
#include "exec/slurm_executor.h"
#include "exec/slurm_text.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using namespace std::chrono_literals;

namespace kopt::exec {
namespace {

using slurm::JobState;

constexpr milliseconds kCliTimeout = 60s;        // one squeue/sbatch/scancel call
constexpr milliseconds kFastPollFor = 5s;        // poll quickly at first: short jobs end quickly
constexpr milliseconds kFastPoll = 200ms;
constexpr milliseconds kStopConfirmWait = 120s;  // after scancel: KillWait (30 s default) + slack
constexpr milliseconds kProgressEvery = 250ms;

std::string durationText(milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == '\n' || s[b] == ' ')) ++b;
  return s.substr(b);
}

std::string lastLineOf(const std::string& text) {
  const std::string t = trimmed(text);
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string uniqueJobName() {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::ostringstream s;
  s << "kopt-" << std::hex << ::getpid() << "-" << rd() << "-" << counter++;
  return s.str();
}

// A Slurm client call (squeue, sbatch, ...): run through the local executor so it has a timeout
// and cannot leave processes behind; its small output is read back from temporary files.
struct CliResult {
  RunResult run;
  std::string out;
  std::string err;
  bool ok() const { return run.ok(); }
  std::string why() const {
    const std::string e = trimmed(err);
    return e.empty() ? run.error : e;
  }
};

class SlurmCli {
 public:
  SlurmCli() : local_(makeLocalExecutor()) {}

  CliResult call(std::vector<std::string> argv, std::map<std::string, std::string> env = {},
                 milliseconds timeout = kCliTimeout) const {
    static std::atomic<unsigned long> counter{0};
    // Files, not a directory, so nothing is left behind once they are removed.
    const fs::path dir = fs::temp_directory_path();
    std::error_code ec;
    const std::string stem = "kopt-slurm-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    CommandSpec spec;
    spec.argv = std::move(argv);
    spec.env = std::move(env);
    spec.stdoutPath = dir / (stem + ".out");
    spec.stderrPath = dir / (stem + ".err");
    spec.timeout = timeout;
    spec.killGrace = 2s;
    CliResult r;
    r.run = local_->run(spec, RunObserver{});
    r.out = tailText(spec.stdoutPath, 1 << 20);
    r.err = tailText(spec.stderrPath, 1 << 16);
    fs::remove(spec.stdoutPath, ec);
    fs::remove(spec.stderrPath, ec);
    return r;
  }

  std::vector<slurm::QueueEntry> queueByName(const std::string& name, bool* ok = nullptr) const {
    auto r = call({"squeue", "-h", "-t", "all", "-n", name, "-o", slurm::kQueueFormat});
    if (ok) *ok = r.ok();
    return r.ok() ? slurm::parseQueue(r.out) : std::vector<slurm::QueueEntry>{};
  }

  std::vector<slurm::QueueEntry> queueById(const std::string& id, bool* ok = nullptr) const {
    auto r = call({"squeue", "-h", "-t", "all", "-j", id, "-o", slurm::kQueueFormat});
    if (ok) *ok = r.ok();
    return r.ok() ? slurm::parseQueue(r.out) : std::vector<slurm::QueueEntry>{};
  }

  std::optional<slurm::JobInfo> show(const std::string& id) const {
    auto r = call({"scontrol", "show", "job", "-o", id});
    if (!r.ok()) return std::nullopt;
    return slurm::parseJobInfo(r.out);
  }

  slurm::NodeHealth nodeHealth(const std::string& nodes) const {
    slurm::NodeHealth all;
    auto r = call({"sinfo", "-h", "-n", nodes, "-o", "%t"});
    if (!r.ok()) return all;  // sinfo trouble is not evidence against the node
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
      if (trimmed(line).empty()) continue;
      auto h = slurm::parseNodeState(line);
      all.down = all.down || h.down;
      all.notResponding = all.notResponding || h.notResponding;
    }
    return all;
  }

  void cancel(const std::string& jobId) const { call({"scancel", jobId}); }
  void cancelByName(const std::string& name) const { call({"scancel", "-n", name}); }

 private:
  std::unique_ptr<Executor> local_;
};

// How long a condition has held over consecutive polls; any poll where it does not hold resets it.
class HeldFor {
 public:
  // Whether `holds` has now been true for at least `grace`.
  bool update(bool holds, milliseconds grace) {
    if (!holds) {
      since_.reset();
      return false;
    }
    const auto now = Clock::now();
    if (!since_) since_ = now;
    return now - *since_ >= grace;
  }

 private:
  std::optional<Clock::time_point> since_;
};

// Watches one job's queue entries for the things that end a wait early: a request Slurm can never
// satisfy, a node that died under the job, and a job left waiting on nodes that are down.
class JobWatch {
 public:
  enum class Verdict { Continue, Lost, Refused };

  JobWatch(const SlurmCli& cli, const ExecutorConfig& config) : cli_(cli), config_(config) {}

  Verdict check(const slurm::QueueEntry& e) {
    if (e.state == JobState::NodeFail || e.state == JobState::BootFail) {
      why_ = "Slurm job " + e.jobId + " failed with its node " + e.nodes + " (" + slurm::toString(e.state) +
             "); the command's result is lost, not measured";
      return Verdict::Lost;
    }
    if (e.state == JobState::Pending && slurm::isImpossibleReason(e.reason)) {
      why_ = "Slurm can never run this request (job " + e.jobId + " pending with Reason=" + e.reason +
             "): it asks for more than partition '" + (config_.partition.empty() ? "default" : config_.partition) +
             "' offers; lower executor.gres / executor.extra_args or choose another executor.partition";
      return Verdict::Refused;
    }
    // Waiting on nodes that are down (the node died between two jobs of a measurement): after
    // the same grace as a node that stops answering, the command is lost; it never started.
    const bool waitingOnDownNodes = e.state == JobState::Pending && slurm::isNodesDownReason(e.reason);
    if (waitingOnDownNodes_.update(waitingOnDownNodes, config_.nodeLostAfter)) {
      why_ = "Slurm job " + e.jobId + " waited " + durationText(config_.nodeLostAfter) +
             " for nodes that are down (Reason=" + e.reason + "); nothing ran, the command is lost, not measured";
      return Verdict::Lost;
    }
    const bool onNode = e.state == JobState::Running || e.state == JobState::Completing ||
                        e.state == JobState::Suspended || e.state == JobState::Configuring;
    const auto health = onNode && !e.nodes.empty() ? cli_.nodeHealth(e.nodes) : slurm::NodeHealth{};
    if (health.down) {
      why_ = "Slurm marked node " + e.nodes + " DOWN while job " + e.jobId +
             " ran on it (slurmd died or the node failed); the command's result is lost, not measured";
      return Verdict::Lost;
    }
    if (notResponding_.update(health.notResponding, config_.nodeLostAfter)) {
      why_ = "node " + e.nodes + " stopped responding to Slurm for " + durationText(config_.nodeLostAfter) +
             " while job " + e.jobId + " ran on it (slurmd died?); the command's result is lost, not measured";
      return Verdict::Lost;
    }
    return Verdict::Continue;
  }

  const std::string& why() const { return why_; }

 private:
  const SlurmCli& cli_;
  const ExecutorConfig& config_;
  HeldFor notResponding_;
  HeldFor waitingOnDownNodes_;
  std::string why_;
};

RunResult makeResult(RunOutcome outcome, std::string error, Clock::time_point start) {
  RunResult r;
  r.outcome = outcome;
  r.error = std::move(error);
  r.wallTime = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return r;
}

// The end state of a job that ended on its own, as a RunResult. `exitCode` is what the job (or
// srun) reported; `stderrTail` lets a program that never started be told from one that failed.
RunResult mapFinalState(const slurm::JobInfo& info, int exitCode, const std::string& stderrTail,
                        const std::string& program, Clock::time_point start) {
  const std::string job = "Slurm job " + info.jobId;
  if (slurm::isImpossibleReason(info.reason)) {
    return makeResult(RunOutcome::FailedToStart, "Slurm refused " + job + " (Reason=" + info.reason +
                                                  "): the request asks for more than the partition offers; "
                                                  "lower executor.gres / executor.extra_args or choose another partition",
                      start);
  }
  switch (info.state) {
    case JobState::Timeout:
      return makeResult(RunOutcome::TimedOut, job + " hit Slurm's time limit (executor.time / --time) and was killed", start);
    case JobState::Deadline:
      return makeResult(RunOutcome::TimedOut, job + " passed its deadline and was killed", start);
    case JobState::NodeFail:
    case JobState::BootFail:
      return makeResult(RunOutcome::Lost, job + " failed with its node " + info.nodes + " (" + slurm::toString(info.state) +
                                           "); the command's result is lost, not measured", start);
    case JobState::Preempted:
      return makeResult(RunOutcome::Lost, job + " was preempted by a higher-priority job; run it again", start);
    case JobState::Cancelled:
      return makeResult(RunOutcome::Cancelled, job + " was cancelled outside kopt (scancel or an administrator)", start);
    case JobState::OutOfMemory: {
      auto r = makeResult(RunOutcome::Signaled, job + " ran out of memory and was killed", start);
      r.signal = SIGKILL;
      return r;
    }
    default:
      break;
  }
  if (stderrTail.find("kopt: program '") != std::string::npos ||
      (stderrTail.find("slurmstepd") != std::string::npos && stderrTail.find("execve()") != std::string::npos) ||
      stderrTail.find("kopt: cannot enter the working directory") != std::string::npos) {
    std::string line;
    std::istringstream in(stderrTail);
    std::string l;
    while (std::getline(in, l)) {
      if (l.find("kopt: ") != std::string::npos || l.find("execve()") != std::string::npos) line = l;
    }
    return makeResult(RunOutcome::FailedToStart, "could not start '" + program + "' on " + info.nodes + ": " + trimmed(line), start);
  }
  if (info.signal != 0) {
    auto r = makeResult(RunOutcome::Signaled, "'" + program + "' (" + job + ") was killed by signal " + std::to_string(info.signal), start);
    r.signal = info.signal;
    if (const char* abbrev = ::sigabbrev_np(info.signal)) r.error += std::string(" (SIG") + abbrev + ")";
    return r;
  }
  auto r = makeResult(RunOutcome::Exited, "", start);
  r.exitCode = exitCode;
  if (exitCode != 0) r.error = "'" + program + "' exited with code " + std::to_string(exitCode) + " (" + job + ")";
  return r;
}

class SlurmExecutor final : public Executor {
 public:
  explicit SlurmExecutor(ExecutorConfig config) : config_(std::move(config)), local_(makeLocalExecutor()) {}
  std::string name() const override { return "slurm"; }

  RunResult run(const CommandSpec& spec, const RunObserver& observer) override {
    const auto start = Clock::now();
    if (spec.argv.empty() || spec.argv.front().empty()) {
      return makeResult(RunOutcome::FailedToStart, "nothing to run: argv is empty", start);
    }
    if (spec.stdoutPath.empty()) {
      return makeResult(RunOutcome::FailedToStart, "no stdout path given for the command's output", start);
    }
    std::error_code ec;
    const fs::path cwd = fs::absolute(spec.cwd.empty() ? fs::current_path() : spec.cwd, ec);
    // srun/sbatch silently fall back to /tmp when --chdir fails; refuse here instead (the file
    // system is shared, so what is missing here is missing on the node).
    if (ec || !fs::is_directory(cwd)) {
      return makeResult(RunOutcome::FailedToStart, "working directory '" + spec.cwd.string() + "' does not exist", start);
    }
    const bool batch = config_.mode == SlurmMode::Sbatch ||
                       (config_.mode == SlurmMode::Auto &&
                        (spec.timeout.count() <= 0 || spec.timeout > config_.autoSbatchAfter));
    const std::string name = uniqueJobName();
    return batch ? runBatch(spec, observer, name, cwd, start) : runStep(spec, observer, name, cwd, start);
  }

 private:
  std::vector<std::string> commonFlags(const CommandSpec& spec, const std::string& name, const fs::path& cwd) const {
    std::vector<std::string> f = {"--job-name=" + name, "--chdir=" + cwd.string()};
    if (!config_.partition.empty()) f.push_back("--partition=" + config_.partition);
    if (!config_.account.empty()) f.push_back("--account=" + config_.account);
    if (!config_.gres.empty()) f.push_back("--gres=" + config_.gres);
    f.push_back("--time=" + (config_.time.empty() ? slurm::timeLimitFor(spec.timeout) : config_.time));
    f.insert(f.end(), config_.extraArgs.begin(), config_.extraArgs.end());  // last: they win
    return f;
  }

  milliseconds pollInterval(Clock::time_point start) const {
    return Clock::now() - start < kFastPollFor ? std::min(kFastPoll, config_.pollEvery) : config_.pollEvery;
  }

  // scancel, then wait until Slurm reports the job over (its processes are gone by then).
  void cancelJob(const std::string& jobId, const std::string& name) const {
    if (!jobId.empty()) {
      cli_.cancel(jobId);
    } else {
      cli_.cancelByName(name);
    }
  }

  bool stopAndConfirm(const std::string& jobId, const std::string& name) const {
    cancelJob(jobId, name);
    const auto until = Clock::now() + kStopConfirmWait;
    while (Clock::now() < until) {
      bool ok = false;
      auto entries = jobId.empty() ? cli_.queueByName(name, &ok) : cli_.queueById(jobId, &ok);
      bool running = false;
      for (const auto& e : entries) running = running || !slurm::isFinal(e.state);
      if (ok && !running) return true;
      std::this_thread::sleep_for(kFastPoll);
    }
    return false;
  }

  std::string stderrTail(const CommandSpec& spec) const {
    return tailText(spec.stderrPath.empty() ? spec.stdoutPath : spec.stderrPath, 8192);
  }

  // --- srun ---------------------------------------------------------------------------------
  RunResult runStep(const CommandSpec& spec, const RunObserver& observer, const std::string& name,
                    const fs::path& cwd, Clock::time_point start) {
    CommandSpec step = spec;
    step.argv = {"srun"};
    for (auto& f : commonFlags(spec, name, cwd)) step.argv.push_back(std::move(f));
    step.argv.insert(step.argv.end(), spec.argv.begin(), spec.argv.end());
    step.cwd = cwd;

    std::mutex m;
    std::condition_variable wake;
    bool done = false;
    std::string jobId;
    JobWatch watch(cli_, config_);
    JobWatch::Verdict verdict = JobWatch::Verdict::Continue;
    CancellationToken inner;

    std::thread monitor([&] {
      auto nextPoll = Clock::now() + kFastPoll;
      std::unique_lock<std::mutex> lock(m);
      while (!done) {
        wake.wait_for(lock, 50ms);
        if (done) break;
        if (observer.cancel.cancelled()) inner.cancel();
        if (Clock::now() < nextPoll) continue;
        lock.unlock();
        auto entries = cli_.queueByName(name);
        JobWatch::Verdict v = JobWatch::Verdict::Continue;
        std::string id;
        if (!entries.empty()) {
          id = entries.front().jobId;
          v = watch.check(entries.front());
        }
        lock.lock();
        if (!id.empty()) jobId = id;
        if (v != JobWatch::Verdict::Continue) {
          verdict = v;
          inner.cancel();
        }
        nextPoll = Clock::now() + pollInterval(start);
      }
    });

    RunObserver stepObserver;
    stepObserver.cancel = inner;
    stepObserver.onProgress = observer.onProgress;
    RunResult r = local_->run(step, stepObserver);
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    wake.notify_all();
    monitor.join();

    if (r.outcome == RunOutcome::FailedToStart) {
      r.error = "could not run srun: " + r.error + " (is Slurm installed, on PATH, with SLURM_CONF set?)";
      return r;
    }
    if (jobId.empty()) {
      auto entries = cli_.queueByName(name);
      if (!entries.empty()) jobId = entries.front().jobId;
    }
    const bool stoppedByUs = verdict != JobWatch::Verdict::Continue || r.outcome == RunOutcome::Cancelled ||
                             r.outcome == RunOutcome::TimedOut || r.outcome == RunOutcome::Hung;
    if (verdict == JobWatch::Verdict::Lost) {
      // Slurm cannot confirm anything about a job on a dead node until it declares the node DOWN
      // (SlurmdTimeout, often minutes): ask for the cancel and report at once.
      cancelJob(jobId, name);
      return makeResult(RunOutcome::Lost, watch.why(), start);
    }
    if (stoppedByUs) {
      // srun forwards SIGTERM to the step, but a SIGKILLed srun leaves the job running: always
      // scancel and wait for Slurm to confirm.
      const bool confirmed = stopAndConfirm(jobId, name);
      r.exitCode = -1;  // srun's own exit status says nothing about the stopped command
      r.signal = 0;
      if (verdict == JobWatch::Verdict::Refused) return makeResult(RunOutcome::FailedToStart, watch.why(), start);
      if (!jobId.empty()) r.error += " (Slurm job " + jobId + " cancelled" + (confirmed ? ")" : ", not yet confirmed over)");
      r.wallTime = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
      return r;
    }
    if (r.outcome == RunOutcome::Lost) return r;

    std::optional<slurm::JobInfo> info = jobId.empty() ? std::nullopt : cli_.show(jobId);
    if (!info) {
      if (r.ok()) return r;  // a step inside an existing allocation has no job of its own
      return makeResult(RunOutcome::FailedToStart,
                        "srun could not start the job: " + lastLineOf(stderrTail(spec)), start);
    }
    const std::string tail = stderrTail(spec);
    if (r.exitCode != 0 && tail.find("srun: error: Unable to allocate resources") != std::string::npos) {
      std::string line;
      std::istringstream in(tail);
      for (std::string l; std::getline(in, l);) {
        if (l.find("Unable to allocate resources") != std::string::npos) line = l;
      }
      return makeResult(RunOutcome::FailedToStart, "Slurm refused the job: " + trimmed(line), start);
    }
    const int code = r.outcome == RunOutcome::Exited ? r.exitCode : info->exitCode;
    return mapFinalState(*info, code, stderrTail(spec), spec.argv.front(), start);
  }

  // --- sbatch -------------------------------------------------------------------------------
  RunResult runBatch(const CommandSpec& spec, const RunObserver& observer, const std::string& name,
                     const fs::path& cwd, Clock::time_point start) {
    std::error_code ec;
    const fs::path out = fs::absolute(spec.stdoutPath, ec);
    const fs::path err = spec.stderrPath.empty() ? fs::path() : fs::absolute(spec.stderrPath, ec);
    // The files exist (empty) from now on, even when the job never starts.
    for (const fs::path& p : {out, err}) {
      if (p.empty()) continue;
      if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
      std::ofstream touch(p, std::ios::trunc);
      if (!touch) return makeResult(RunOutcome::FailedToStart, "cannot open output file '" + p.string() + "'", start);
    }

    // The batch script: enter the directory for real (sbatch would fall back to /tmp), check the
    // program exists (so "not found" is told apart from the program's own exit code 127), exec it.
    const std::string q0 = slurm::shellQuote(spec.argv.front());
    std::string script = "cd -- " + slurm::shellQuote(cwd.string()) +
                         " || { echo \"kopt: cannot enter the working directory " + cwd.string() +
                         " on $(hostname)\" >&2; exit 126; }; command -v -- " + q0 +
                         " >/dev/null 2>&1 || { echo \"kopt: program '" + spec.argv.front() +
                         "' not found on $(hostname)\" >&2; exit 127; }; exec";
    for (const auto& a : spec.argv) script += " " + slurm::shellQuote(a);

    std::vector<std::string> argv = {"sbatch", "--parsable", "--no-requeue", "--open-mode=truncate",
                                     "--output=" + slurm::escapeOutputPath(out.string())};
    if (!err.empty()) argv.push_back("--error=" + slurm::escapeOutputPath(err.string()));
    for (auto& f : commonFlags(spec, name, cwd)) argv.push_back(std::move(f));
    argv.push_back("--wrap=" + script);

    auto submitted = cli_.call(argv, spec.env);
    if (submitted.run.outcome == RunOutcome::FailedToStart) {
      return makeResult(RunOutcome::FailedToStart, "could not run sbatch: " + submitted.run.error +
                                                    " (is Slurm installed, on PATH, with SLURM_CONF set?)", start);
    }
    if (!submitted.ok()) return makeResult(RunOutcome::FailedToStart, "sbatch refused the job: " + submitted.why(), start);
    auto jobId = slurm::parseSubmittedJobId(submitted.out);
    if (!jobId) return makeResult(RunOutcome::FailedToStart, "sbatch printed no job id: " + trimmed(submitted.out), start);

    JobWatch watch(cli_, config_);
    std::optional<Clock::time_point> runningSince;
    auto lastHeard = Clock::now();
    auto lastActivity = Clock::now();
    auto lastProgress = start - kProgressEvery;
    auto nextPoll = Clock::now();
    std::uintmax_t lastBytes = 0, reportedBytes = 0;
    auto outputBytes = [&] { return fileSize(out) + (err.empty() ? 0 : fileSize(err)); };
    auto stopFor = [&](RunOutcome outcome, std::string why) {
      const bool confirmed = stopAndConfirm(*jobId, name);
      why += " (Slurm job " + *jobId + (confirmed ? " cancelled)" : " cancelled, not yet confirmed over)");
      return makeResult(outcome, why, start);
    };

    for (;;) {
      const auto now = Clock::now();
      if (observer.cancel.cancelled()) {
        return stopFor(RunOutcome::Cancelled, "cancelled after " + durationText(std::chrono::duration_cast<milliseconds>(now - start)));
      }
      const std::uintmax_t bytes = outputBytes();
      if (bytes != lastBytes) {
        lastBytes = bytes;
        lastActivity = now;
      }
      if (bytes != reportedBytes && now - lastProgress >= kProgressEvery && observer.onProgress) {
        reportedBytes = bytes;
        lastProgress = now;
        try {
          observer.onProgress(RunProgress{std::chrono::duration_cast<milliseconds>(now - start), bytes, lastCompleteLine(out)});
        } catch (const std::exception& e) {
          return stopFor(RunOutcome::Cancelled, std::string("stopped: the progress callback failed: ") + e.what());
        }
      }
      if (runningSince) {
        if (spec.timeout.count() > 0 && now - *runningSince >= spec.timeout) {
          return stopFor(RunOutcome::TimedOut, "timed out after " + durationText(spec.timeout) + " of running (the limit)");
        }
        if (spec.hangAfter.count() > 0 && now - std::max(lastActivity, *runningSince) >= spec.hangAfter) {
          return stopFor(RunOutcome::Hung, "hung: no output for " + durationText(spec.hangAfter));
        }
      }
      if (now >= nextPoll) {
        bool ok = false;
        auto entries = cli_.queueById(*jobId, &ok);
        nextPoll = Clock::now() + pollInterval(start);
        if (ok && !entries.empty()) {
          lastHeard = Clock::now();
          const auto& e = entries.front();
          if (slurm::isFinal(e.state)) break;
          if (!runningSince && (e.state == JobState::Running || e.state == JobState::Completing)) {
            runningSince = Clock::now();
            lastActivity = *runningSince;
          }
          const auto v = watch.check(e);
          if (v == JobWatch::Verdict::Lost) {
            cancelJob(*jobId, name);  // no confirmation to wait for from a dead node
            return makeResult(RunOutcome::Lost, watch.why() + " (Slurm job " + *jobId + " cancelled)", start);
          }
          if (v == JobWatch::Verdict::Refused) return stopFor(RunOutcome::FailedToStart, watch.why());
        } else if (ok) {
          // squeue answered but no longer knows the job (purged, or the controller lost it).
          if (cli_.show(*jobId)) break;
          return makeResult(RunOutcome::Lost, "Slurm job " + *jobId + " vanished from Slurm's queue before kopt saw it end", start);
        } else if (Clock::now() - lastHeard >= config_.nodeLostAfter) {
          return makeResult(RunOutcome::Lost, "Slurm has not answered about job " + *jobId + " for " +
                                               durationText(config_.nodeLostAfter) + " (slurmctld down?)", start);
        }
      }
      std::this_thread::sleep_for(50ms);
    }

    std::optional<slurm::JobInfo> info;
    for (int attempt = 0; attempt < 5 && !info; ++attempt) {
      info = cli_.show(*jobId);
      if (!info) std::this_thread::sleep_for(kFastPoll);
    }
    if (!info) return makeResult(RunOutcome::Lost, "Slurm job " + *jobId + " ended but scontrol cannot show its end state", start);
    if (observer.onProgress && outputBytes() != reportedBytes) {
      try {
        observer.onProgress(RunProgress{std::chrono::duration_cast<milliseconds>(Clock::now() - start), outputBytes(),
                                        lastCompleteLine(out)});
      } catch (...) {
      }
    }
    return mapFinalState(*info, info->exitCode, stderrTail(spec), spec.argv.front(), start);
  }

  ExecutorConfig config_;
  std::unique_ptr<Executor> local_;
  SlurmCli cli_;
};

}  // namespace

std::unique_ptr<Executor> makeSlurmExecutor(const ExecutorConfig& config) {
  return std::make_unique<SlurmExecutor>(config);
}

}  // namespace kopt::exec
