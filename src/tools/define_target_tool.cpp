#include "tools/define_target_tool.h"

#include "campaign/engine_phase_table.h"

namespace kopt::tools {

mcp::ToolSpec makeDefineTargetTool(const CampaignToolDeps& deps) {
  mcp::ToolSpec t;
  t.name = "define_target";
  t.title = "Define the optimization target";
  t.description =
      "DEFINE_TARGET: define a kernel-optimization campaign. Give the git repository holding the kernel (repo_path) and "
      "the manifest: a YAML file (manifest_path) or text (manifest_yaml), and/or individual fields, which override the "
      "YAML. Required manifest fields: target_op, target_backend, target_gpu, primary_metric, kernel_source, "
      "test_command, benchmark_command, quick_command. Writes a draft under <repo>/.kopt/campaigns/<name> (never "
      "committed) and changes nothing else; the user must then confirm it with confirm_target. Calling it again while "
      "unconfirmed replaces the draft. A manifest problem is refused with every field named.";
  FlatSchema s;
  s.string("repo_path", "The git repository holding the kernel (absolute, or relative to the server's workspace)", true)
      .string("campaign_dir", "Where to put the campaign (default <repo>/.kopt/campaigns/<op>_<backend>_<gpu>_<date>)")
      .string("manifest_path", "A manifest YAML file inside the repository or workspace (e.g. manifests/cpu_gemm.yaml)")
      .string("manifest_yaml", "The manifest as YAML text", false, FlatSchema::kMaxDocumentChars)
      .string("target_op", "The op, e.g. gemm_fp8_blockwise")
      .string("target_backend", "TRITON, CK, HIPBLASLT, TURBO, HIP, CUDA or CPU")
      .string("target_gpu", "Arch (gfx942, gfx950, sm_90, cpu) or product (MI300X, H100, ...)")
      .string("primary_metric", "Forward TFLOPS, Combined Step TFLOPS, Forward GB/s, Backward GB/s, or a custom column")
      .strings("kernel_source", "Repository paths (files or directories) of the kernel; rounds may only change these")
      .string("test_command", "The focused correctness test (no shell; placeholders ${REPO_DIR}, ${CAMPAIGN_DIR})")
      .string("benchmark_command", "The full benchmark (kopt appends --summary-csv, --samples, --shapes, --seed)")
      .string("quick_command", "The quick benchmark for the representative shapes (same arguments as the benchmark)")
      .string("build_command", "Rebuild after a change (empty for Triton/Python)")
      .string("profile_command", "Optional profiler command")
      .strings("target_shapes", "Shape labels to optimize, or [\"all\"]")
      .string("performance_target", "Optional goal, e.g. '> 500 TFLOPS' (T1)")
      .integer("max_iterations", "Optional cap on optimization rounds (T3), below 120", false, 1, 119)
      .string("git_branch", "auto (optimize/<campaign>), none, or a branch name")
      .boolean("git_commit", "Commit accepted rounds (must be true)")
      .enumeration("execution_mode", {"repo", "workspace"}, "repo (default) or workspace")
      .string("project_skill", "Optional project skill name")
      .string("max_duration", "Optional wall-clock budget, e.g. 4h")
      .string("base_branch", "Optional base branch")
      .string("created", "YYYY-MM-DD HH:MM (default: now)")
      .enumeration("schema", {"gemm", "memory"}, "The frozen CSV schema: gemm (TFLOPS, default) or memory (GB/s); a custom one needs the manifest")
      .string("tips_root", "Where append_tip writes the tips ledger (inside the workspace; default: the server's)");
  t.inputSchema = s.build();
  t.outputSchema = OutputSchema()
                       .string("campaign_name", true)
                       .string("campaign_dir", true)
                       .string("repo")
                       .string("manifest_yaml")
                       .string("summary")
                       .boolean("redefined")
                       .strings("warnings")
                       .phase()
                       .string("next_tool")
                       .build();
  t.annotations.readOnlyHint = false;
  t.annotations.destructiveHint = false;
  t.annotations.idempotentHint = true;
  t.annotations.openWorldHint = false;
  auto engine = deps.engine;
  t.handler = [engine](const json& args, mcp::RequestContext&) {
    return guarded("define_target", [&] {
      campaign::DefineTargetRequest q;
      q.repoPath = argString(args, "repo_path");
      q.campaignDir = argString(args, "campaign_dir");
      q.manifestPath = argString(args, "manifest_path");
      q.manifestYaml = argString(args, "manifest_yaml");
      q.targetOp = argOptString(args, "target_op");
      q.targetBackend = argOptString(args, "target_backend");
      q.targetGpu = argOptString(args, "target_gpu");
      q.primaryMetric = argOptString(args, "primary_metric");
      q.testCommand = argOptString(args, "test_command");
      q.benchmarkCommand = argOptString(args, "benchmark_command");
      q.quickCommand = argOptString(args, "quick_command");
      q.buildCommand = argOptString(args, "build_command");
      q.profileCommand = argOptString(args, "profile_command");
      q.performanceTarget = argOptString(args, "performance_target");
      q.executionMode = argOptString(args, "execution_mode");
      q.gitBranch = argOptString(args, "git_branch");
      q.baseBranch = argOptString(args, "base_branch");
      q.maxDuration = argOptString(args, "max_duration");
      q.projectSkill = argOptString(args, "project_skill");
      q.created = argOptString(args, "created");
      q.schema = argOptString(args, "schema");
      q.tipsRoot = argOptString(args, "tips_root");
      q.kernelSource = argStrings(args, "kernel_source");
      q.targetShapes = argStrings(args, "target_shapes");
      if (auto n = argInt(args, "max_iterations")) q.maxIterations = static_cast<int>(*n);
      if (args.contains("git_commit") && args["git_commit"].is_boolean()) q.gitCommit = args["git_commit"].get<bool>();
      return respond<campaign::DefineTargetResult>(
          engine->defineTarget(q),
          [](const campaign::DefineTargetResult& r) {
            return json{{"campaign_name", r.campaignName}, {"campaign_dir", r.campaignDir}, {"repo", r.repo},
                        {"manifest_yaml", r.manifestYaml}, {"summary", r.summary},      {"redefined", r.redefined},
                        {"warnings", r.warnings},         {"phase", campaign::toString(r.phase)},
                        {"next_tool", campaign::nextToolFor(r.phase)}};
          },
          [](const campaign::DefineTargetResult& r) {
            std::string text = std::string(r.redefined ? "Redefined" : "Defined") + " the target; nothing else changed.\n" +
                               r.summary + "\nAsk the user to confirm it: call confirm_target with campaign_dir \"" +
                               r.campaignDir + "\".";
            for (const auto& w : r.warnings) text += "\nWarning: " + w;
            return text;
          });
    });
  };
  return t;
}

}  // namespace kopt::tools
