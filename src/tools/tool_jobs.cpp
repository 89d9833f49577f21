#include "tools/tool_jobs.h"

#include <algorithm>

namespace kopt::tools {

const char* toString(JobState state) {
  switch (state) {
    case JobState::Running: return "running";
    case JobState::Finished: return "finished";
    case JobState::Cancelled: return "cancelled";
  }
  return "running";
}

struct ToolJobs::Job {
  std::string id;
  std::string tool;
  campaign::CallContext ctx;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point ended;
  mutable std::mutex m;
  std::condition_variable changed;
  JobState state = JobState::Running;
  double progress = 0;
  std::optional<double> total;
  std::string message;
  unsigned long long version = 0;  // bumps on every update
  std::optional<mcp::ToolResult> result;
  std::thread thread;
};

ToolJobs::ToolJobs(std::size_t keepFinished) : keepFinished_(keepFinished) {}

ToolJobs::~ToolJobs() {
  std::vector<std::shared_ptr<Job>> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    for (auto& [id, job] : jobs_) all.push_back(job);
  }
  for (auto& job : all) job->ctx.cancel.cancel();
  for (auto& job : all) {
    if (job->thread.joinable()) job->thread.join();
  }
}

void ToolJobs::setOnFinished(FinishHook hook) {
  std::lock_guard<std::mutex> lock(mutex_);
  onFinished_ = std::move(hook);
}

std::string ToolJobs::start(const std::string& tool, Body body, nlohmann::json arguments) {
  auto job = std::make_shared<Job>();
  job->tool = tool;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job->id = "job-" + std::to_string(next_++);
    jobs_[job->id] = job;
  }
  std::weak_ptr<Job> weak = job;
  job->ctx.progress = [weak](double p, std::optional<double> total, const std::string& message) {
    if (auto j = weak.lock()) {
      std::lock_guard<std::mutex> lock(j->m);
      if (p > j->progress) j->progress = p;
      j->total = total;
      j->message = message;
      ++j->version;
      j->changed.notify_all();
    }
  };
  Job* raw = job.get();
  job->thread = std::thread([this, raw, body = std::move(body), arguments = std::move(arguments)] {
    mcp::ToolResult result;
    try {
      result = body(raw->ctx);
    } catch (const std::exception& e) {
      result = mcp::ToolResult::error(std::string("internal error in ") + raw->tool + ": " + e.what());
    } catch (...) {
      result = mcp::ToolResult::error("internal error in " + raw->tool);
    }
    {
      std::lock_guard<std::mutex> lock(raw->m);
      raw->result = std::move(result);
      raw->state = raw->ctx.cancel.cancelled() ? JobState::Cancelled : JobState::Finished;
      raw->ended = std::chrono::steady_clock::now();
      ++raw->version;
      raw->changed.notify_all();
    }
    FinishHook hook;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finishedOrder_.push_back(raw->id);
      if (!closing_) hook = onFinished_;
    }
    if (hook) {
      std::optional<mcp::ToolResult> result;
      {
        std::lock_guard<std::mutex> lock(raw->m);
        result = raw->result;
      }
      if (result) hook(raw->tool, arguments, *result);
    }
  });
  prune();
  return job->id;
}

JobStatus ToolJobs::snapshot(const Job& job) const {
  std::lock_guard<std::mutex> lock(job.m);
  JobStatus s;
  s.id = job.id;
  s.tool = job.tool;
  s.state = job.state;
  s.progress = job.progress;
  s.total = job.total;
  s.message = job.message;
  const auto end = job.state == JobState::Running ? std::chrono::steady_clock::now() : job.ended;
  s.elapsedSeconds = std::chrono::duration<double>(end - job.started).count();
  s.result = job.result;
  return s;
}

std::optional<JobStatus> ToolJobs::poll(const std::string& id, std::chrono::milliseconds wait,
                                        const std::function<void(const JobStatus&)>& onProgress) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return std::nullopt;
    job = it->second;
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  unsigned long long seen = 0;
  {
    std::lock_guard<std::mutex> lock(job->m);
    seen = job->version;
  }
  while (true) {
    std::unique_lock<std::mutex> lock(job->m);
    if (job->state != JobState::Running) break;
    if (!job->changed.wait_until(lock, deadline, [&] { return job->version != seen; })) break;
    seen = job->version;
    const bool running = job->state == JobState::Running;
    lock.unlock();
    if (running && onProgress) onProgress(snapshot(*job));
  }
  return snapshot(*job);
}

bool ToolJobs::cancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  it->second->ctx.cancel.cancel();
  return true;
}

std::vector<JobStatus> ToolJobs::list() const {
  std::vector<std::shared_ptr<Job>> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [id, job] : jobs_) all.push_back(job);
  }
  std::vector<JobStatus> out;
  for (const auto& j : all) out.push_back(snapshot(*j));
  return out;
}

void ToolJobs::prune() {
  std::vector<std::shared_ptr<Job>> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    while (finishedOrder_.size() > keepFinished_) {
      auto it = jobs_.find(finishedOrder_.front());
      if (it != jobs_.end()) {
        doomed.push_back(it->second);
        jobs_.erase(it);
      }
      finishedOrder_.erase(finishedOrder_.begin());
    }
  }
  for (auto& j : doomed) {
    if (j->thread.joinable()) j->thread.join();
  }
}

}  // namespace kopt::tools
