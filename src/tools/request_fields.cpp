#include "tools/request_fields.h"

#include "campaign/round_vocabulary.h"

namespace kopt::tools {

Field campaignDirField() {
  return arg("campaign_dir",
             "The campaign directory (absolute, or relative to the server's workspace), as define_target returned it")
      .required();
}

Field asyncField() {
  return arg("async",
             "Run in the background and return {job_id} at once; then call poll_job with the id until its state is "
             "finished (for runs longer than your client's request timeout). Default false.");
}

void describe(FieldVisitor& v, CampaignDirArgs& a) { v.field(campaignDirField(), a.campaignDir); }

void describe(FieldVisitor& v, CampaignStatusArgs& a) {
  v.field(arg("campaign_dir", "The campaign directory; omit it to list the campaigns found under the workspace"),
          a.campaignDir);
}

void describe(FieldVisitor& v, PagedArgs& a) {
  v.field(campaignDirField(), a.campaignDir);
  v.field(arg("offset", "Byte offset into the " + a.what + " (default 0), for paging through a long text").atLeast(0),
          a.offset);
  v.field(arg("limit", "Most bytes of the " + a.what + " to return (default 40000)").range(1, 200000), a.limit);
}

void describe(FieldVisitor& v, TrendArgs& a) {
  v.field(campaignDirField(), a.campaignDir);
  v.field(arg("limit", "How many of the latest rows (default 10)").range(1, 1000), a.limit);
}

void describe(FieldVisitor& v, PollJobArgs& a) {
  v.field(arg("job_id", "The job id the async call returned").required(), a.jobId);
  v.field(arg("wait_seconds", "How long to wait for the job to end (0-600)").range(0, 600), a.waitSeconds);
  v.field(arg("cancel", "Cancel the job (its partial files are discarded; nothing is recorded)"), a.cancel);
}

void describe(FieldVisitor& v, campaign::DefineTargetRequest& q) {
  v.field(arg("repo_path", "The git repository holding the kernel (absolute, or relative to the server's workspace)")
              .required(),
          q.repoPath);
  v.field(arg("campaign_dir", "Where to put the campaign (default <repo>/.kopt/campaigns/<op>_<backend>_<gpu>_<date>)"),
          q.campaignDir);
  v.field(arg("manifest_path", "A manifest YAML file inside the repository or workspace (e.g. manifests/cpu_gemm.yaml)"),
          q.manifestPath);
  v.field(arg("manifest_yaml", "The manifest as YAML text").document(), q.manifestYaml);
  v.field(arg("target_op", "The op, e.g. gemm_fp8_blockwise"), q.targetOp);
  v.field(arg("target_backend", "TRITON, CK, HIPBLASLT, TURBO, HIP, CUDA or CPU"), q.targetBackend);
  v.field(arg("target_gpu", "Arch (gfx942, gfx950, sm_90, cpu) or product (MI300X, H100, ...)"), q.targetGpu);
  v.field(arg("primary_metric",
              "Forward TFLOPS, Combined Step TFLOPS, Forward GB/s, Backward GB/s, or a custom column"),
          q.primaryMetric);
  v.field(arg("kernel_source", "Repository paths (files or directories) of the kernel; rounds may only change these"),
          q.kernelSource);
  v.field(arg("test_command", "The focused correctness test (no shell; placeholders ${REPO_DIR}, ${CAMPAIGN_DIR})"),
          q.testCommand);
  v.field(arg("benchmark_command", "The full benchmark (kopt appends --summary-csv, --samples, --shapes, --seed)"),
          q.benchmarkCommand);
  v.field(arg("quick_command", "The quick benchmark for the representative shapes (same arguments as the benchmark)"),
          q.quickCommand);
  v.field(arg("build_command", "Rebuild after a change (empty for Triton/Python)"), q.buildCommand);
  v.field(arg("profile_command", "Optional profiler command"), q.profileCommand);
  v.field(arg("target_shapes", "Shape labels to optimize, or [\"all\"]"), q.targetShapes);
  v.field(arg("performance_target", "Optional goal, e.g. '> 500 TFLOPS' (T1)"), q.performanceTarget);
  v.field(arg("max_iterations", "Optional cap on optimization rounds (T3), below 120").range(1, 119), q.maxIterations);
  v.field(arg("git_branch", "auto (optimize/<campaign>), none, or a branch name"), q.gitBranch);
  v.field(arg("git_commit", "Commit accepted rounds (must be true)"), q.gitCommit);
  v.field(arg("execution_mode", "repo (default) or workspace").oneOf({"repo", "workspace"}), q.executionMode);
  v.field(arg("project_skill", "Optional project skill name"), q.projectSkill);
  v.field(arg("max_duration", "Optional wall-clock budget, e.g. 4h"), q.maxDuration);
  v.field(arg("base_branch", "Optional base branch"), q.baseBranch);
  v.field(arg("created", "YYYY-MM-DD HH:MM (default: now)"), q.created);
  v.field(arg("schema",
              "The frozen CSV schema: gemm (TFLOPS, default) or memory (GB/s); a custom one needs the manifest")
              .oneOf({"gemm", "memory"}),
          q.schema);
  v.field(arg("tips_root", "Where append_tip writes the tips ledger (inside the workspace; default: the server's)"),
          q.tipsRoot);
}

void describe(FieldVisitor& v, campaign::ConfirmTargetRequest& q) {
  // `method` is not an argument: the tools layer sets it from how the confirmation arrived.
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("confirm", "true when the user confirmed the target (clients without elicitation)"), q.confirm);
  v.field(arg("confirmed_by", "Who confirmed it (a person's name; clients without elicitation)"), q.confirmedBy);
}

void describe(FieldVisitor& v, campaign::BeginRoundRequest& q) {
  auto& h = q.hypothesis;
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("statement", "I expect <metric> to <improve> because <reason>").required(), h.statement);
  v.field(arg("change", "The one change this round makes (one line)").required(), h.change);
  v.field(arg("expected_metric", "The metric the change should move (default: the primary metric)"), h.expected.metric);
  choice(v, arg("expected_direction", "Which way (default increase)"), h.expected.direction,
         NameTable<campaign::records::EffectDirection>{{"increase", campaign::records::EffectDirection::Increase},
                                                       {"decrease", campaign::records::EffectDirection::Decrease}});
  v.field(arg("expected_size_pct", "Predicted size of the effect, percent (> 0)").required(), h.expected.sizePct);
  // The bucket travels as its text too: the engine's W2/W3 refusal quotes it as given.
  v.field(arg("rule11_bucket", "Rule-11 bucket of the change")
              .required()
              .oneOf({"K1", "K2", "K3", "K4", "W1", "W2", "W3"})
              .refuseOthers("a Rule-11 bucket", "one of K1, K2, K3, K4, W1 (W2/W3 are forbidden)"),
          q.bucketText);
  if (auto bucket = campaign::rule11BucketFromString(q.bucketText)) h.bucket = *bucket;
  v.field(arg("files", "Repository files (or directories) the change will touch; all inside kernel_source").required(),
          h.files);
  v.field(arg("config_only", "A config-only sweep of the same kernel code (an empty diff is then allowed)"),
          h.configOnly);
  v.field(arg("bottleneck", "The diagnosed bottleneck (optional)"), h.bottleneck);
  v.field(arg("risk", "The risk of the change (optional)"), h.risk);
}

void describe(FieldVisitor& v, campaign::StepRequest& q) { v.field(campaignDirField(), q.campaignDir); }

void describe(FieldVisitor& v, campaign::BenchRequest& q) {
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("full", "Run the full benchmark on all target shapes instead of the quick one"), q.full);
  v.field(arg("pairs", "Interleaved pairs to run (default: the manifest's gate.pairs)").range(1, 50), q.pairs);
}

void describe(FieldVisitor& v, campaign::ValidateRequest& q) {
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("full", "Validate with the full benchmark on all target shapes from the start"), q.full);
}

void describe(FieldVisitor& v, campaign::AcceptOrRevertRequest& q) {
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("description", "One line for the trend table and the commit subject (default: the hypothesis' change)"),
          q.description);
  v.field(arg("attribution", "What caused the observed effect (or its absence)").required(), q.attribution);
  v.field(arg("next_direction", "The direction of the next round").required(), q.nextDirection);
  v.field(arg("key_finding", "One line for the trend table"), q.keyFinding);
  v.field(arg("root_cause", "Rollback analysis: why it did not work (required for a rollback)"), q.rootCause);
  v.field(arg("lesson", "Rollback analysis: what to remember (required for a rollback)"), q.lesson);
  v.field(arg("cache_key", "Transfer check: the cache key, or none"), q.cacheKey);
  v.field(arg("id_audit", "Transfer check: the id()/address audit"), q.idAudit);
  v.field(arg("hit_rate_trace", "Transfer check: the 4-step hit-rate trace"), q.hitRateTrace);
  v.field(arg("skew_robustness", "Transfer check: skewed / empty-group robustness"), q.skewRobustness);
  v.field(arg("estimated_real_gain", "Transfer check: the gain expected in a real training step"), q.estimatedRealGain);
  v.field(arg("transfer_decision", "Transfer check decision (default from the bucket)")
              .oneOf({campaign::toString(campaign::TransferDecision::AcceptAsReal),
                      campaign::toString(campaign::TransferDecision::AcceptWithAsterisk),
                      campaign::toString(campaign::TransferDecision::RejectAsOverfit)}),
          q.transferDecision);
  v.field(arg("audit_confirmed_by", "AUDIT only, clients without elicitation: the person who audited the numbers"),
          q.auditConfirmedBy);
  v.field(arg("audit_note", "AUDIT only: what the audit found"), q.auditNote);
  v.field(arg("audit_rejected", "AUDIT only: the person rejected the numbers (the round is rolled back)"),
          q.auditRejected);
}

void describe(FieldVisitor& v, campaign::TerminationRequest& q) {
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("user_stop", "The user asked to stop (T4)"), q.userStop);
  v.field(arg("directions", "New directions, each 'category: direction' (the stagnation review; also recorded as "
                            "Directions to Try)"),
          q.directions);
}

void describe(FieldVisitor& v, campaign::FinalAcceptanceRequest& q) {
  v.field(campaignDirField(), q.campaignDir);
  v.field(arg("pairs", "Interleaved pairs (default: max(5, gate.pairs))").range(1, 50), q.pairs);
}

namespace {

// op/backend/gpu/tips_root, shared by the two tips tools.
void describeTipsScope(FieldVisitor& v, std::string& campaignDir, std::string& op, std::string& backend,
                       std::string& gpu, const std::string& backendNote) {
  v.field(arg("campaign_dir", "A campaign whose op/backend/gpu (and tips_root) to use"), campaignDir);
  v.field(arg("op", "target_op"), op);
  v.field(arg("backend", "target_backend" + backendNote), backend);
  v.field(arg("gpu", "target_gpu (arch)"), gpu);
}

Field tipsRootField() { return arg("tips_root", "Override the tips root (inside the workspace)"); }

}  // namespace

void describe(FieldVisitor& v, campaign::TipsQueryRequest& q) {
  describeTipsScope(v, q.campaignDir, q.op, q.backend, q.gpu, " (any case)");
  v.field(arg("keyword", "Space-separated keywords, all must match"), q.keyword);
  v.field(tipsRootField(), q.tipsRoot);
}

void describe(FieldVisitor& v, campaign::AppendTipRequest& q) {
  describeTipsScope(v, q.campaignDir, q.op, q.backend, q.gpu, "");
  v.field(tipsRootField(), q.tipsRoot);
  v.field(arg("round", "The round the tip comes from").atLeast(1), q.round);
  v.field(arg("status", "ACCEPTED (default), ROLLED BACK, ..."), q.status);
  v.field(arg("context", "What was tried"), q.context);
  v.field(arg("signal", "What was measured"), q.signal);
  v.field(arg("takeaway", "What to remember").required(), q.takeaway);
  v.field(arg("applicability", "Where it applies"), q.applicability);
}

}  // namespace kopt::tools
