#include "tools/prepare_environment_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

namespace {

std::string summaryText(const campaign::PrepareEnvironmentResult& r) {
  return "Environment ready: " + (r.branch ? "branch " + *r.branch : std::string("current branch")) + " at " +
         r.baseCommit.substr(0, 12) + ", campaign directory " + r.campaignDir +
         (r.harnessCopied ? ", quick harness at " + r.harnessPath : std::string()) + ". Next: read_tips.";
}

}  // namespace

mcp::ToolSpec makePrepareEnvironmentTool(const CampaignToolDeps& deps) {
  auto engine = deps.engine;
  mcp::ToolSpec t = quickTool<CampaignDirArgs, campaign::PrepareEnvironmentResult>(
      {"prepare_environment", "Prepare the campaign environment",
       "PREPARE_ENVIRONMENT -> READ_HISTORICAL_TIPS: checks out the campaign branch (optimize/<campaign> unless the "
       "manifest says otherwise; uncommitted work is carried over), lays out the campaign directory, freezes "
       "manifest.yaml and copies the quick harness in when the quick command uses one."},
      [engine](const CampaignDirArgs& a) { return engine->prepareEnvironment(a.campaignDir); }, summaryText);
  t.annotations = campaignWriteAnnotations();
  return t;
}

}  // namespace kopt::tools
