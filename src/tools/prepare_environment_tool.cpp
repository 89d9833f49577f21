#include "tools/prepare_environment_tool.h"

#include "campaign/engine_phase_table.h"

namespace kopt::tools {

mcp::ToolSpec makePrepareEnvironmentTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "prepare_environment";
  t.title = "Prepare the campaign environment";
  t.description =
      "PREPARE_ENVIRONMENT -> READ_HISTORICAL_TIPS: checks out the campaign branch (optimize/<campaign> unless the "
      "manifest says otherwise; uncommitted work is carried over), lays out the campaign directory, freezes "
      "manifest.yaml and copies the quick harness in when the quick command uses one.";
  FlatSchema s;
  s.campaignDir();
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .prop("branch", nullable("string"))
                       .string("base_commit", true)
                       .string("campaign_dir")
                       .string("manifest_sha256")
                       .boolean("harness_copied")
                       .string("harness_path")
                       .phase()
                       .string("next_tool")
                       .build();
  t.annotations = campaignWriteAnnotations();
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("prepare_environment", [&] {
      return respond<campaign::PrepareEnvironmentResult>(
          engine->prepareEnvironment(argString(args, "campaign_dir")),
          [](const campaign::PrepareEnvironmentResult& r) {
            return json{{"branch", r.branch ? json(*r.branch) : json(nullptr)},
                        {"base_commit", r.baseCommit},
                        {"campaign_dir", r.campaignDir},
                        {"manifest_sha256", r.manifestSha256},
                        {"harness_copied", r.harnessCopied},
                        {"harness_path", r.harnessPath},
                        {"phase", campaign::toString(r.phase)},
                        {"next_tool", campaign::nextToolFor(r.phase)}};
          },
          [](const campaign::PrepareEnvironmentResult& r) {
            return "Environment ready: " + (r.branch ? "branch " + *r.branch : std::string("current branch")) +
                   " at " + r.baseCommit.substr(0, 12) + ", campaign directory " + r.campaignDir +
                   (r.harnessCopied ? ", quick harness at " + r.harnessPath : std::string()) + ". Next: read_tips.";
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
