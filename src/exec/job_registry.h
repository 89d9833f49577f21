#pragma once
// Start + poll for commands that outlive a client's request timeout (a full validation can take
// longer than an MCP client waits for one tools/call): start() returns an id at once and runs the
// command on a background thread; poll() reports progress and, at the end, the result.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "exec/executor.h"

namespace kopt::exec {

enum class JobState { Running, Finished };
const char* toString(JobState state);

struct JobStatus {
  std::string id;
  JobState state = JobState::Running;
  RunProgress progress;              // the latest progress report (elapsed is refreshed on poll)
  std::optional<RunResult> result;   // set once state == Finished
  bool cancelRequested = false;
};

class JobRegistry {
 public:
  // Called on the job's thread after the command ended and before poll() reports it finished,
  // so work done here (parsing the CSV, writing records) is complete when a client sees the end.
  using FinishHook = std::function<void(const RunResult&)>;

  // `executor` runs jobs started without one of their own; null: the local executor.
  explicit JobRegistry(std::shared_ptr<Executor> executor = nullptr, std::size_t keepFinished = 256);
  // Cancels what still runs and waits for every job thread: no thread outlives the registry.
  ~JobRegistry();
  JobRegistry(const JobRegistry&) = delete;
  JobRegistry& operator=(const JobRegistry&) = delete;

  std::string start(CommandSpec spec, FinishHook onFinish = {}, std::shared_ptr<Executor> executor = nullptr);
  // nullopt: no such job (never started, or finished long ago and forgotten).
  std::optional<JobStatus> poll(const std::string& id) const;
  // Asks the job to stop (the executor kills its process group). false: no such job.
  bool cancel(const std::string& id);
  // Blocks until the job finished or `limit` passed; returns its status (nullopt: no such job).
  std::optional<JobStatus> waitFor(const std::string& id, std::chrono::milliseconds limit) const;

 private:
  struct Job;
  void pruneLocked();

  std::shared_ptr<Executor> executor_;
  std::size_t keepFinished_;
  mutable std::mutex mutex_;
  mutable std::condition_variable finished_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::map<std::uint64_t, std::string> finishOrder_;  // sequence -> id, oldest first
  std::uint64_t nextId_ = 1;
  std::uint64_t finishSeq_ = 0;
  bool closing_ = false;
};

}  // namespace kopt::exec
