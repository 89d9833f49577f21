#include "exec/job_registry.h"

#include <algorithm>

namespace kopt::exec {

const char* toString(JobState state) { return state == JobState::Finished ? "finished" : "running"; }

struct JobRegistry::Job {
  std::string id;
  CancellationToken cancel;
  std::chrono::steady_clock::time_point started;
  RunProgress progress;
  std::optional<RunResult> result;
  bool cancelRequested = false;
  std::thread thread;
};

JobRegistry::JobRegistry(std::shared_ptr<Executor> executor, std::size_t keepFinished)
    : executor_(executor ? std::move(executor) : std::shared_ptr<Executor>(makeLocalExecutor())),
      keepFinished_(std::max<std::size_t>(keepFinished, 1)) {}

JobRegistry::~JobRegistry() {
  std::map<std::string, std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;  // from here on no job thread joins another (pruneLocked is off)
    jobs = jobs_;
    for (auto& [id, job] : jobs) {
      if (!job->result) job->cancel.cancel();
    }
  }
  for (auto& [id, job] : jobs) {
    if (job->thread.joinable()) job->thread.join();
  }
}

std::string JobRegistry::start(CommandSpec spec, FinishHook onFinish, std::shared_ptr<Executor> executor) {
  auto job = std::make_shared<Job>();
  job->started = std::chrono::steady_clock::now();
  if (!executor) executor = executor_;
  std::lock_guard<std::mutex> lock(mutex_);
  job->id = "job-" + std::to_string(nextId_++);
  jobs_[job->id] = job;
  // The thread holds the Job and the executor, not the registry's map entry: pruning a finished
  // job never pulls memory out from under its thread.
  job->thread = std::thread([this, job, executor, spec = std::move(spec), onFinish = std::move(onFinish)] {
    RunObserver observer;
    observer.cancel = job->cancel;
    observer.onProgress = [this, job](const RunProgress& p) {
      std::lock_guard<std::mutex> lock(mutex_);
      job->progress = p;
    };
    RunResult result;
    try {
      result = executor->run(spec, observer);
    } catch (const std::exception& e) {
      result.outcome = RunOutcome::FailedToStart;
      result.error = std::string("the executor failed: ") + e.what();
    }
    if (onFinish) {
      try {
        onFinish(result);
      } catch (const std::exception& e) {
        if (result.error.empty()) result.error = std::string("after the run: ") + e.what();
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    job->progress.elapsed = result.wallTime;
    job->result = std::move(result);
    finishOrder_[finishSeq_++] = job->id;
    pruneLocked();
    finished_.notify_all();
  });
  return job->id;
}

void JobRegistry::pruneLocked() {
  if (closing_) return;
  while (finishOrder_.size() > keepFinished_) {
    auto oldest = finishOrder_.begin();
    auto it = jobs_.find(oldest->second);
    if (it != jobs_.end()) {
      // Its thread left its last critical section (it recorded its result under this lock), so
      // joining here cannot deadlock. keepFinished_ >= 1 means it is never the calling thread.
      if (it->second->thread.joinable()) it->second->thread.join();
      jobs_.erase(it);
    }
    finishOrder_.erase(oldest);
  }
}

namespace {
JobStatus statusOf(const std::string& id, const RunProgress& progress, const std::optional<RunResult>& result,
                   bool cancelRequested, std::chrono::steady_clock::time_point started) {
  JobStatus s;
  s.id = id;
  s.progress = progress;
  s.result = result;
  s.cancelRequested = cancelRequested;
  s.state = result ? JobState::Finished : JobState::Running;
  if (!result) {
    s.progress.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  }
  return s;
}
}  // namespace

std::optional<JobStatus> JobRegistry::poll(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  const Job& j = *it->second;
  return statusOf(j.id, j.progress, j.result, j.cancelRequested, j.started);
}

bool JobRegistry::cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  it->second->cancelRequested = true;
  it->second->cancel.cancel();
  return true;
}

std::optional<JobStatus> JobRegistry::waitFor(const std::string& id, std::chrono::milliseconds limit) const {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  std::shared_ptr<Job> job = it->second;
  finished_.wait_for(lock, limit, [&] { return job->result.has_value(); });
  return statusOf(job->id, job->progress, job->result, job->cancelRequested, job->started);
}

}  // namespace kopt::exec
