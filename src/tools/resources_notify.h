#pragma once
// Announcing record changes to subscribed clients without touching each adapter: wrap a campaign
// tool's spec, and after a successful call the URIs its table row names
// (resources::urisChangedBy) get notifications/resources/updated. While a long call reports
// progress (a bench, a validation), the round's benchmark.csv and the campaign overview are
// announced too, at most every two seconds, so a client can follow a bench live. Async calls are
// tracked by job id and announced when poll_job sees them finish.
//
//   auto notifier = std::make_shared<ResourceNotifier>(registrar, workspaceRoot);
//   registrar.addTool(notifier->wrap(makeRunBaselineTool(deps)));
//   registrar.addTool(notifier->wrap(makePollJobTool(deps)));
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "mcp/tool_api.h"

namespace kopt::tools {

class ResourceNotifier : public std::enable_shared_from_this<ResourceNotifier> {
 public:
  ResourceNotifier(mcp::Registrar& registrar, std::filesystem::path workspaceRoot);

  // The same tool, announcing what it changed. Tools that change nothing pass through untouched.
  mcp::ToolSpec wrap(mcp::ToolSpec tool);

  // The campaign name a call is about: the last component of `campaign_dir` (as the tools resolve
  // it against the workspace), else structuredContent's campaign_name. Empty when neither.
  std::string campaignOf(const mcp::json& arguments, const mcp::json* structured) const;

  std::chrono::milliseconds progressInterval{2000};

 private:
  void announce(const std::string& tool, const std::string& campaign, int round);
  void afterCall(const std::string& tool, const mcp::json& arguments, const mcp::ToolResult& result);
  int openRound(const std::string& campaign) const;

  mcp::Registrar& registrar_;
  std::filesystem::path workspaceRoot_;
  std::mutex mutex_;
  struct Job {
    std::string tool;
    std::string campaign;
  };
  std::map<std::string, Job> jobs_;  // async job id -> what to announce when it finishes
};

}  // namespace kopt::tools
