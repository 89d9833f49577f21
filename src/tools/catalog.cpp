// The whole catalogue: one shared CampaignEngine behind the campaign tools, the other engineers'
// tools (parse_bench_csv, device_info), the campaign records as resources and the skills as
// prompts.
#include "tools/catalog.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <system_error>

#include "campaign/engine.h"
#include "tools/accept_or_revert_tool.h"
#include "tools/append_tip_tool.h"
#include "tools/begin_round_tool.h"
#include "tools/campaign_status_tool.h"
#include "tools/confirm_target_tool.h"
#include "tools/define_target_tool.h"
#include "tools/device_info_tool.h"
#include "tools/final_acceptance_tool.h"
#include "tools/list_ineffective_directions_tool.h"
#include "tools/parse_bench_csv_tool.h"
#include "tools/poll_job_tool.h"
#include "tools/prepare_environment_tool.h"
#include "tools/query_tips_tool.h"
#include "tools/query_trend_tool.h"
#include "tools/read_best_summary_tool.h"
#include "tools/read_tips_tool.h"
#include "tools/rebuild_kernel_tool.h"
#include "tools/report_tool.h"
#include "tools/run_baseline_tool.h"
#include "tools/run_quick_bench_tool.h"
#include "tools/run_tests_tool.h"
#include "tools/termination_check_tool.h"
#include "tools/tool_jobs.h"
#include "tools/validate_round_tool.h"
#if __has_include("tools/resources.h")
#include "tools/resources.h"
#include "tools/resources_uri.h"
#define KOPT_HAVE_RESOURCES 1
#endif
#if __has_include("tools/prompts.h")
#include "tools/prompts.h"
#define KOPT_HAVE_PROMPTS 1
#endif

namespace kopt::tools {

namespace fs = std::filesystem;

fs::path findHarnessTemplateDir() {
  if (const char* env = std::getenv("KOPT_TOOLS_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  // The quick harness's folder, the same in a checkout and under share/kopt (CMakeLists.txt installs harness/).
  const fs::path home = fs::path("harness") / "python";
  for (const fs::path& candidate : {exe.parent_path() / ".." / "share" / "kopt" / home, exe.parent_path() / ".." / home,
                                    exe.parent_path() / ".." / ".." / home}) {
    if (fs::is_regular_file(candidate / "quick_test_bench.py", ec)) return fs::weakly_canonical(candidate, ec);
  }
#ifdef KOPT_SOURCE_DIR  // a kopt copied onto PATH still finds the sources it was built from
  if (fs::is_regular_file(fs::path(KOPT_SOURCE_DIR) / home / "quick_test_bench.py", ec)) return fs::path(KOPT_SOURCE_DIR) / home;
#endif
  return {};
}

namespace {

// Crash tests: KOPT_FAULT_POINT=<point> (a trailing '*' matches a prefix) makes the server
// SIGKILL itself when the engine reaches that point, exactly like kill -9 there. With
// KOPT_FAULT_MARKER=<file> it fires only once: when the file does not exist yet (it is created
// first), so the restarted server gets past the point.
std::function<void(const std::string&)> faultFromEnvironment() {
  const char* env = std::getenv("KOPT_FAULT_POINT");
  if (!env || !*env) return {};
  const std::string want = env;
  const char* marker = std::getenv("KOPT_FAULT_MARKER");
  const std::string markerPath = marker ? marker : "";
  return [want, markerPath](const std::string& point) {
    const bool prefix = !want.empty() && want.back() == '*';
    if (point != want && !(prefix && point.rfind(want.substr(0, want.size() - 1), 0) == 0)) return;
    if (!markerPath.empty()) {
      std::error_code ec;
      if (fs::exists(markerPath, ec)) return;
      std::ofstream(markerPath) << point << "\n";
    }
    ::kill(::getpid(), SIGKILL);
  };
}

// Subscribed clients hear about the records a successful call changed (docs/resources.md).
using ChangeNotifier = std::function<void(const std::string& tool, const nlohmann::json& args, const mcp::ToolResult& result)>;

ChangeNotifier changeNotifier(mcp::Registrar& registrar) {
#ifdef KOPT_HAVE_RESOURCES
  return [&registrar](const std::string& tool, const nlohmann::json& args, const mcp::ToolResult& result) {
    if (result.isError || !result.structuredContent || result.structuredContent->contains("job_id")) return;
    const auto& s = *result.structuredContent;
    std::string dir = s.contains("campaign_dir") && s["campaign_dir"].is_string() ? s["campaign_dir"].get<std::string>()
                                                                                 : argString(args, "campaign_dir");
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) return;
    const int round = s.contains("round") && s["round"].is_number_integer() ? s["round"].get<int>() : 0;
    for (const auto& uri : resources::urisChangedBy(tool, fs::path(dir).filename().string(), round)) {
      registrar.notifyResourceUpdated(uri);
    }
  };
#else
  (void)registrar;
  return {};
#endif
}

// The tool, its handler followed by the change notification.
mcp::ToolSpec notifying(mcp::ToolSpec tool, const ChangeNotifier& notify) {
  if (!notify) return tool;
  auto inner = tool.handler;
  const std::string name = tool.name;
  tool.handler = [inner, notify, name](const nlohmann::json& args, mcp::RequestContext& ctx) {
    mcp::ToolResult r = inner(args, ctx);
    try {
      notify(name, args, r);
    } catch (const std::exception&) {
      // A notification is a courtesy; the call's result stands.
    }
    return r;
  };
  return tool;
}

}  // namespace

void registerCatalog(mcp::Registrar& registrar, const CatalogOptions& options) {
  campaign::EngineOptions engineOptions;
  engineOptions.workspaceRoot = options.workspaceRoot.empty() ? fs::current_path() : options.workspaceRoot;
  engineOptions.harnessTemplateDir = findHarnessTemplateDir();
  engineOptions.faultInjection = faultFromEnvironment();
  engineOptions.startWorkersAhead = options.longLived;
  if (const char* tips = std::getenv("KOPT_TIPS_ROOT"); tips && *tips) engineOptions.defaultTipsRoot = tips;
  CampaignToolDeps deps;
  deps.engine = std::make_shared<campaign::CampaignEngine>(engineOptions);
  deps.jobs = std::make_shared<ToolJobs>();
  const ChangeNotifier notify = changeNotifier(registrar);
  if (notify) deps.jobs->setOnFinished(notify);

  // The loop, in order.
  registrar.addTool(notifying(makeDefineTargetTool(deps), notify));
  registrar.addTool(notifying(makeConfirmTargetTool(deps), notify));
  registrar.addTool(notifying(makePrepareEnvironmentTool(deps), notify));
  registrar.addTool(notifying(makeReadTipsTool(deps), notify));
  registrar.addTool(notifying(makeRunBaselineTool(deps), notify));
  registrar.addTool(notifying(makeBeginRoundTool(deps), notify));
  registrar.addTool(notifying(makeRebuildKernelTool(deps), notify));
  registrar.addTool(notifying(makeRunTestsTool(deps), notify));
  registrar.addTool(notifying(makeRunQuickBenchTool(deps), notify));
  registrar.addTool(notifying(makeValidateRoundTool(deps), notify));
  registrar.addTool(notifying(makeAcceptOrRevertTool(deps), notify));
  registrar.addTool(notifying(makeTerminationCheckTool(deps), notify));
  registrar.addTool(notifying(makeFinalAcceptanceTool(deps), notify));
  registrar.addTool(notifying(makeReportTool(deps), notify));
  // Queries.
  registrar.addTool(makeCampaignStatusTool(deps));
  ParseBenchCsvOptions csv;
  csv.workspaceRoot = engineOptions.workspaceRoot;
  auto engine = deps.engine;
  csv.findCampaign = [engine](const std::string& campaignDir) -> std::optional<CampaignSchemaInfo> {
    auto info = engine->schemaInfo(campaignDir);
    if (!info) return std::nullopt;
    return CampaignSchemaInfo{info->frozenHeader, info->labels, info->primaryMetric, info->campaignDir};
  };
  registrar.addTool(makeParseBenchCsvTool(csv));
  if (options.toolSet == CatalogOptions::ToolSet::All) {
    registrar.addTool(makeQueryTrendTool(deps));
    registrar.addTool(makeListIneffectiveDirectionsTool(deps));
    registrar.addTool(makeReadBestSummaryTool(deps));
    registrar.addTool(makeQueryTipsTool(deps));
    registrar.addTool(notifying(makeAppendTipTool(deps), notify));
    registrar.addTool(makeDeviceInfoTool());
  }
  registrar.addTool(makePollJobTool(deps));

#ifdef KOPT_HAVE_RESOURCES
  registerCampaignResources(registrar, engineOptions.workspaceRoot);
#endif
#ifdef KOPT_HAVE_PROMPTS
  if (const fs::path skills = findSkillsDir(); !skills.empty()) registerPrompts(registrar, skills);
#endif
}

}  // namespace kopt::tools
