#include "tools/tool_texts.h"

#include <stdexcept>

namespace kopt::tools {

namespace {

struct Words {
  const char* name;
  const char* title;
  const char* description;
};

// In the order of the loop (catalog.cpp registers them so), then the queries and the tools beside.
const Words kWords[] = {
    {"define_target", "Define the optimization target",
     "DEFINE_TARGET: define a kernel-optimization campaign. Give the git repository holding the kernel (repo_path) "
     "and the manifest: a YAML file (manifest_path) or text (manifest_yaml), and/or individual fields, which "
     "override the YAML. Required manifest fields: target_op, target_backend, target_gpu, primary_metric, "
     "kernel_source, test_command, benchmark_command, quick_command. Writes a draft under "
     "<repo>/.kopt/campaigns/<name> (never committed) and changes nothing else; the user must then confirm it with "
     "confirm_target. Calling it again while unconfirmed replaces the draft. A manifest problem is refused with "
     "every field named."},
    {"confirm_target", "Confirm the target with the user",
     "DEFINE_TARGET -> PREPARE_ENVIRONMENT: the user confirms the campaign defined by define_target. When your "
     "client supports MCP elicitation, kopt asks the user directly (the confirm/confirmed_by arguments are then "
     "ignored). Otherwise show the user the summary define_target returned, and pass confirm: true with "
     "confirmed_by = the name of the person who confirmed; kopt records who confirmed in the ledger. A decline is "
     "refused and nothing changes."},
    {"prepare_environment", "Prepare the campaign environment",
     "PREPARE_ENVIRONMENT -> READ_HISTORICAL_TIPS: checks out the campaign branch (optimize/<campaign> unless the "
     "manifest says otherwise; uncommitted work is carried over), lays out the campaign directory, freezes "
     "manifest.yaml and copies the quick harness in when the quick command uses one."},
    {"read_tips", "Read the historical tips",
     "READ_HISTORICAL_TIPS -> BASELINE: reads <tips_root>/<gpu>/<op>/<backend>/tips.md (what earlier campaigns "
     "learned about this op) and records that it was read. A missing file is fine. Long files are paged with "
     "offset/limit; later, query_tips reads them again (filtered by keyword)."},
    {"run_baseline", "Run the baseline (round-1)",
     "BASELINE -> ANALYZE: kopt builds and tests the unmodified kernel, runs the full benchmark on all target "
     "shapes as an A/A calibration (the same commit in the working tree and in a best-build worktree, interleaved "
     "with secret seeds: batches between two persistent bench workers over three worker sessions, or fresh "
     "processes for a CSV harness) to learn each shape's noise and check the harness (no A/A bias, the target "
     "minimum detectable change reachable; a harness that fails is refused), chooses 3-5 representative shapes "
     "for quick validation, freezes the schema header, shape list, harness files and commands (hashes in the "
     "ledger) and snapshots the kernel as the rollback root. Long: sends progress, honours cancellation, or use "
     "async: true and poll_job."},
    {"begin_round", "Begin a round with one hypothesis",
     "ANALYZE -> OPTIMIZE: opens the next round (number = last + 1, never reused) with exactly one hypothesis, "
     "stated before any number of the round exists: the statement ('I expect X to improve because Y'), the one "
     "change, the expected effect (metric, direction, size in percent), the Rule-11 bucket (K1 kernel-internal, K2 "
     "layout, K3 single-launch fusion, K4 same-call data flow, W1 weight cache; W2/W3 are refused) and the files it "
     "will touch (inside kernel_source). validate_round later refuses any change outside these files. config_only "
     "allows an empty diff. One open round at a time. The hypothesis is frozen (hashed into the ledger)."},
    {"rebuild_kernel", "Rebuild the kernel",
     "OPTIMIZE/VALIDATE (open round): runs the manifest's build_command on the working tree (nothing to do for "
     "Triton), output in rounds/round-N/artifacts/build.log (its tail is returned). A failed build is a result (ok: "
     "false), not an error: fix and call again; the round keeps its number. Benches and validation rebuild "
     "automatically when the files changed since the last build. Long: progress, cancellation, or async: true + "
     "poll_job."},
    {"run_tests", "Run the correctness tests",
     "OPTIMIZE/VALIDATE (open round): runs the manifest's test_command on the working tree (rebuilding first if the "
     "files changed), output in rounds/round-N/artifacts/test.log (its tail is returned). Correctness before "
     "performance: a failure is a result (ok: false); fix it inside the round and run again, the round keeps its "
     "number. Long: progress, cancellation, or async: true + poll_job."},
    {"run_quick_bench", "Measure the candidate against the current best",
     "OPTIMIZE/VALIDATE (open round): kopt runs the quick bench itself (full: true = the full benchmark on all "
     "target shapes): the candidate (your working tree, rebuilt if needed) and the current best (a worktree of the "
     "last accepted commit) alternate in fresh processes, `pairs` pairs (default: the manifest's), each pair with "
     "a secret seed. kopt writes rounds/round-N/artifacts/benchmark.csv from its own runs; it never reads a CSV you "
     "write. Returns per-shape ratios with confidence intervals and the gate's preview; only validate_round "
     "decides. Long: progress, cancellation, or async: true + poll_job."},
    {"validate_round", "Validate the round",
     "OPTIMIZE/VALIDATE -> VALIDATE: the referee's verdict on the open round. Refused (nothing judged) when: frozen "
     "files/schema/commands changed, hypothesis.json was edited, HEAD moved, the diff touches files outside the "
     "declared set, the diff is empty (unless config-only), or the same files were already validated. Then, in "
     "order: build, tests, every Check PASS, schema byte-identical, shape set identical, and the statistical gate "
     "on interleaved A/B pairs (per-shape IMPROVED/SAME/REGRESSED/INCONCLUSIVE with family-wise control, aggregate "
     "CI); INCONCLUSIVE re-measures automatically up to the pair cap; a small quick win escalates to the full "
     "benchmark. Decision: ACCEPT, ACCEPT_WITH_NOTE, ROLLBACK, or AUDIT (numbers beyond speed of light or a >10x "
     "jump). Then call accept_or_revert, which applies it. Long: progress, cancellation, or async: true + "
     "poll_job."},
    {"accept_or_revert", "Apply the round's verdict",
     "VALIDATE -> ANALYZE: kopt applies validate_round's verdict mechanically; you cannot choose. ACCEPT: commits "
     "exactly the declared files on the campaign branch ('[optimize] <op> <backend> round-N: ...'); the current "
     "best moves there. ROLLBACK: restores the last accepted tree for every kernel file (tracked and untracked). "
     "Either way kopt snapshots the kernel and writes summary.md, decision.json, the trend row and the optimize.md "
     "block from your prose: attribution and next_direction always; root_cause and lesson for a rollback; the "
     "real-training transfer check fields (rule 11). An AUDIT verdict needs a person: kopt asks through "
     "elicitation when your client supports it, else pass audit_confirmed_by (+ audit_note) or audit_rejected: "
     "true. Destructive: it rewrites the kernel files in the working tree."},
    {"termination_check", "Check the termination conditions",
     "ANALYZE: evaluates T1 (performance_target reached), T2 (the best is at an acceptable fraction of the hardware "
     "peak), T3 (max_iterations rounds used) and T4 (user_stop) and records the check in optimize.md. After two "
     "rollbacks in a row it is the stagnation review: pass at least three new directions in at least two "
     "categories ('category: direction'); begin_round is refused until then. When it says stop, call "
     "final_acceptance."},
    {"final_acceptance", "Final acceptance",
     "ANALYZE -> REPORT (after termination_check said stop): the full benchmark on all target shapes, the best "
     "build (working tree at the last accepted commit) interleaved against the baseline build, with per-shape "
     "verdicts and the aggregate gain's confidence interval, plus the full test suite. Long: progress, "
     "cancellation, or async: true + poll_job."},
    {"report", "Write the campaign report",
     "REPORT -> DONE: writes report.md (baseline vs best, accepted and rolled-back rounds, effective and "
     "ineffective directions, the rule-11 real-training audit, final acceptance) with report-metric.svg and "
     "report-heatmap.svg, and appends the Final Report section to logs/optimize.md. Returns the markdown (paged "
     "with offset/limit)."},
    {"campaign_status", "Campaign status",
     "Any phase, read-only: where the campaign stands (phase, open round and its declared files, best and baseline "
     "commits and aggregates, rollback streak), whether the ledger chain and the frozen files are intact, what was "
     "interrupted if the server died mid-step and how the next call resumes it, and which tools to call next. Call "
     "it first after a restart; without campaign_dir it lists the campaigns under the workspace."},
    {"query_trend", "Query the performance trend",
     "Read-only: the last `limit` rows of the campaign's trend (round, status, description, fwd/bwd avg and peak, "
     "step geomean, vs-baseline percentages, key finding), the rollback streak and the current best round and "
     "score. Same fields as the turbo helper's query_trend."},
    {"list_ineffective_directions", "List the ineffective directions",
     "Read-only: every rolled-back round's direction, why it was rolled back and the files it modified, so the next "
     "hypothesis does not repeat one. A round rolled back although the gate proved a shape faster (IMPROVED) is not "
     "listed: its direction works there (report.md lists it apart). Same fields as the turbo helper's "
     "list_ineffective_directions."},
    {"read_best_summary", "Read the best round's summary",
     "Read-only: summary.md of the current best round (the baseline until a round is accepted). Same fields as the "
     "turbo helper's read_best_summary; the body is paged with offset/limit."},
    {"query_tips", "Query the historical tips",
     "Read-only: the '### ' entries of <tips_root>/<gpu>/<op>/<backend>/tips.md whose text contains every keyword "
     "(case-insensitive; empty = all). op/backend/gpu default to the campaign's when campaign_dir is given. Same "
     "fields as the turbo helper's query_tips."},
    {"append_tip", "Append a historical tip",
     "Appends one entry ('### <date> round-<N> — <STATUS>' with Context, Signal, Takeaway, Applicability) to the "
     "shared tips file <tips_root>/<gpu>/<op>/<backend>/tips.md, under a file lock so parallel campaigns never "
     "interleave. op/backend/gpu default to the campaign's. Same fields as the turbo helper's append_tip."},
    {"poll_job", "Poll a background job",
     "For calls started with async: true (run_baseline, rebuild_kernel, run_tests, run_quick_bench, validate_round, "
     "accept_or_revert, final_acceptance): waits up to wait_seconds (default 0, at most 600; progress "
     "notifications meanwhile) and returns the job's state and progress. When the state is finished, `result` "
     "holds the tool's own structured result (an isError result is returned as an error, with the tool's text). "
     "cancel: true stops it. Poll in windows of at most 15 minutes; two windows without progress mean a hang. "
     "After a server restart jobs are gone: campaign_status says where the campaign stands."},
    // The tools beside the campaign loop.
    {"parse_bench_csv", "Parse a benchmark CSV",
     "Reads a frozen-schema benchmark CSV and returns rows (label, shape, check, metrics, metrics_stddev_pct), "
     "all_pass, and the aggregate (geomean over PASS shapes) per primary metric, like the turbo helper; plus "
     "schema_check (byte-for-byte against a frozen header) and shape_check (missing / extra / reordered "
     "labels). Informational: kopt never decides from a CSV the agent points at."},
    {"device_info", "GPU device info",
     "What GPU this machine has: name, arch (sm_90, gfx942, ...), compute units, clocks, memory size, bus "
     "width and bandwidth; the product it was identified as from name and memory size (identified_as: an "
     "sm_90 with 141 GB is an H200, not an H100); the datasheet peak (bf16/fp8 TFLOPS, HBM GB/s, from a "
     "versioned table); and the "
     "ceilings measured here (device copy GB/s, vendor-library bf16 matmul TFLOPS), cached per machine. "
     "With no GPU, present is false and reason says why. Pass measure_ceilings=true once per machine."},
};

}  // namespace

ToolText toolText(const std::string& name) {
  for (const Words& w : kWords) {
    if (name == w.name) return ToolText{w.name, w.title, w.description};
  }
  // A factory asking for words nobody wrote is a programming error, met at the first start.
  throw std::logic_error("no words for tool '" + name + "' in tool_texts.cpp");
}

}  // namespace kopt::tools
