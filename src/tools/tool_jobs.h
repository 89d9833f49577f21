#pragma once
// Start + poll for the long campaign tools (run_baseline, rebuild_kernel, run_tests,
// run_quick_bench, validate_round, final_acceptance, accept_or_revert): a call with
// `async: true` starts the engine call on a background thread and answers with a job id at
// once; poll_job reports its progress and, when it ended, the tool's own result. Jobs live as long
// as the server process (a restarted server finds the campaign's state through campaign_status).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "campaign/engine_types.h"
#include "mcp/tool_api.h"

namespace kopt::tools {

enum class JobState { Running, Finished, Cancelled };
const char* toString(JobState state);  // "running", "finished", "cancelled"

struct JobStatus {
  std::string id;
  std::string tool;
  JobState state = JobState::Running;
  double progress = 0;
  std::optional<double> total;
  std::string message;
  double elapsedSeconds = 0;
  std::optional<mcp::ToolResult> result;  // once finished
};

class ToolJobs {
 public:
  using Body = std::function<mcp::ToolResult(const campaign::CallContext&)>;
  explicit ToolJobs(std::size_t keepFinished = 64);
  ~ToolJobs();  // cancels running jobs and waits for their threads
  ToolJobs(const ToolJobs&) = delete;
  ToolJobs& operator=(const ToolJobs&) = delete;

  // `arguments` are the tool call's (kept for the finish hook).
  std::string start(const std::string& tool, Body body, nlohmann::json arguments = nlohmann::json::object());
  // Called on the job's thread when a job ends (not while the registry shuts down).
  using FinishHook = std::function<void(const std::string& tool, const nlohmann::json& arguments, const mcp::ToolResult&)>;
  void setOnFinished(FinishHook hook);
  // Waits up to `wait` for the job to end; `onProgress` sees each progress update meanwhile.
  std::optional<JobStatus> poll(const std::string& id, std::chrono::milliseconds wait,
                                const std::function<void(const JobStatus&)>& onProgress = {});
  bool cancel(const std::string& id);
  std::vector<JobStatus> list() const;

 private:
  struct Job;
  JobStatus snapshot(const Job& job) const;
  void prune();

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::vector<std::string> finishedOrder_;
  std::size_t keepFinished_;
  unsigned long long next_ = 1;
  FinishHook onFinished_;
  bool closing_ = false;
};

}  // namespace kopt::tools
