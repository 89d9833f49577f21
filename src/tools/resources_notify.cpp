#include "tools/resources_notify.h"

#include "tools/resources_scan.h"
#include "tools/resources_uri.h"
#include "util/json_text.h"

namespace kopt::tools {

namespace fs = std::filesystem;
using mcp::json;

namespace {

// Forwards everything to the real context; progress also announces the bench's files.
class NotifyingContext : public mcp::RequestContext {
 public:
  NotifyingContext(mcp::RequestContext& inner, std::function<void()> onProgress, std::chrono::milliseconds interval)
      : inner_(inner), onProgress_(std::move(onProgress)), interval_(interval) {}

  void progress(double progress, std::optional<double> total, std::string message) override {
    inner_.progress(progress, total, std::move(message));
    auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (onProgress_ && (!last_ || now - *last_ >= interval_)) {
      last_ = now;
      onProgress_();
    }
  }
  void log(mcp::LogLevel level, const std::string& logger, const json& data) override { inner_.log(level, logger, data); }
  const CancellationToken& cancellation() const override { return inner_.cancellation(); }
  const mcp::ClientInfo& client() const override { return inner_.client(); }
  std::optional<json> requestClient(const std::string& method, const json& params, std::chrono::milliseconds timeout,
                                    std::string* error) override {
    return inner_.requestClient(method, params, timeout, error);
  }

 private:
  mcp::RequestContext& inner_;
  std::function<void()> onProgress_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::optional<std::chrono::steady_clock::time_point> last_;
};

bool changesRecords(const std::string& tool) {
  return !resources::urisChangedBy(tool, "x", 1).empty();
}

bool measures(const std::string& tool) {
  return tool == "run_baseline" || tool == "run_quick_bench" || tool == "validate_round" || tool == "final_acceptance";
}

int roundOf(const json* structured) {
  if (structured && structured->is_object() && structured->contains("round") && (*structured)["round"].is_number_integer())
    return (*structured)["round"].get<int>();
  return 0;
}

}  // namespace

ResourceNotifier::ResourceNotifier(mcp::Registrar& registrar, fs::path workspaceRoot)
    : registrar_(registrar), workspaceRoot_(std::move(workspaceRoot)) {}

std::string ResourceNotifier::campaignOf(const json& arguments, const json* structured) const {
  auto nameFromDir = [&](const std::string& dir) -> std::string {
    if (dir.empty()) return {};
    fs::path p(dir);
    if (p.is_relative()) p = workspaceRoot_ / p;
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(p, ec);
    if (ec) resolved = p.lexically_normal();
    std::string name = resolved.filename().string();
    if (name.empty()) name = resolved.parent_path().filename().string();  // a trailing '/'
    return name;
  };
  if (arguments.is_object() && arguments.contains("campaign_dir") && arguments["campaign_dir"].is_string()) {
    std::string name = nameFromDir(arguments["campaign_dir"].get<std::string>());
    if (!name.empty()) return name;
  }
  if (structured && structured->is_object()) {
    if (structured->contains("campaign_name") && (*structured)["campaign_name"].is_string())
      return (*structured)["campaign_name"].get<std::string>();
    if (structured->contains("campaign_dir") && (*structured)["campaign_dir"].is_string())
      return nameFromDir((*structured)["campaign_dir"].get<std::string>());
  }
  return {};
}

int ResourceNotifier::openRound(const std::string& campaign) const {
  auto location = resources::findCampaign(workspaceRoot_, campaign);
  if (!location) return 0;
  const json state = util::readJsonFile(location->dir / "state.json").value_or(json());
  if (state.is_object() && state.contains("open_round") && state["open_round"].is_number_integer())
    return state["open_round"].get<int>();
  return 0;
}

void ResourceNotifier::announce(const std::string& tool, const std::string& campaign, int round) {
  if (campaign.empty()) return;
  for (const auto& uri : resources::urisChangedBy(tool, campaign, round)) registrar_.notifyResourceUpdated(uri);
}

void ResourceNotifier::afterCall(const std::string& tool, const json& arguments, const mcp::ToolResult& result) {
  if (result.isError) return;
  const json* structured = result.structuredContent ? &*result.structuredContent : nullptr;
  if (tool == "poll_job") {
    if (!structured || structured->value("state", "") != "finished") return;
    Job job;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = jobs_.find(structured->value("job_id", ""));
      if (it == jobs_.end()) return;
      job = it->second;
      jobs_.erase(it);
    }
    const json* inner = structured->contains("result") && (*structured)["result"].is_object() ? &(*structured)["result"] : nullptr;
    announce(job.tool, job.campaign, roundOf(inner));
    return;
  }
  std::string campaign = campaignOf(arguments, structured);
  if (tool == "define_target" && structured && structured->contains("campaign_dir") && (*structured)["campaign_dir"].is_string())
    resources::rememberCampaignDir((*structured)["campaign_dir"].get<std::string>());  // may lie outside the scan
  if (structured && structured->contains("job_id") && (*structured)["job_id"].is_string() &&
      structured->value("job_state", "") != "finished") {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_[(*structured)["job_id"].get<std::string>()] = Job{tool, campaign};
    return;
  }
  announce(tool, campaign, roundOf(structured));
}

mcp::ToolSpec ResourceNotifier::wrap(mcp::ToolSpec tool) {
  if (tool.name != "poll_job" && !changesRecords(tool.name)) return tool;
  auto self = shared_from_this();
  auto inner = tool.handler;
  std::string name = tool.name;
  tool.handler = [self, inner, name](const json& arguments, mcp::RequestContext& ctx) {
    std::function<void()> onProgress;
    if (measures(name)) {
      std::string campaign = self->campaignOf(arguments, nullptr);
      int round = name == "run_baseline" ? 1 : self->openRound(campaign);
      onProgress = [self, campaign, round] {
        if (campaign.empty()) return;
        self->registrar_.notifyResourceUpdated(resources::campaignUri(campaign));
        if (round > 0) self->registrar_.notifyResourceUpdated(resources::artifactUri(campaign, round, "benchmark.csv"));
      };
    }
    NotifyingContext wrapped(ctx, onProgress, self->progressInterval);
    mcp::ToolResult result = inner(arguments, wrapped);
    self->afterCall(name, arguments, result);
    return result;
  };
  return tool;
}

}  // namespace kopt::tools
