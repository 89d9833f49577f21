// A scripted agent that runs a whole campaign on the bundled CPU GEMM through kopt's MCP tools,
// with the official TypeScript SDK over stdio: baseline, an accepted round, a regressing round
// reverted, a correctness-breaking round reverted, a noise-level round re-measured, termination,
// final acceptance and the report. Then it checks the git history and every record.
//   node campaign_agent.mjs <kopt-bin> <workspace>   (workspace holds repo/ and cpu_gemm.yaml)
import { readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

import { connectStdio, check } from "./lib/mcp_client.mjs";

const [koptBin, workspace] = process.argv.slice(2);
if (!koptBin || !workspace) {
  console.error("usage: node campaign_agent.mjs <kopt-bin> <workspace>");
  process.exit(2);
}
const repo = join(workspace, "repo");
const configFile = join(repo, "gemm_config.h");
const log = (...a) => console.log("[agent]", ...a);

const client = await connectStdio(koptBin, ["serve", "--workspace", workspace], { env: { ...process.env }, stderr: "inherit" });

async function call(name, args, { expectError = false, onprogress } = {}) {
  const result = await client.callTool({ name, arguments: args }, undefined, {
    timeout: 600000,
    resetTimeoutOnProgress: true,
    onprogress,
  });
  const text = (result.content ?? []).map((c) => c.text ?? "").join("\n");
  if (expectError) {
    check(result.isError === true, `${name} should have been refused, got: ${text.slice(0, 400)}`);
    return text;
  }
  check(!result.isError, `${name} failed: ${text}`);
  check(result.structuredContent, `${name} returned no structuredContent`);
  return result.structuredContent;
}

function setKnob(name, from, to) {
  const text = readFileSync(configFile, "utf8");
  const before = `#define ${name} ${from}\n`;
  check(text.includes(before), `gemm_config.h has '${before.trim()}'`);
  writeFileSync(configFile, text.replace(before, `#define ${name} ${to}\n`));
}
const knob = (name) => new RegExp(`#define ${name} (\\S+)`).exec(readFileSync(configFile, "utf8"))[1];
const git = (...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });

const prose = {
  attribution: "the edit changed the inner loop",
  next_direction: "register blocking over rows of C",
};
const rollbackProse = { ...prose, root_cause: "see the per-shape verdicts", lesson: "keep the tile a multiple of the unroll" };

async function round(n, { knobName, from, to, statement, bucket = "K1", expectedPct = 20 }) {
  const begun = await call("begin_round", {
    campaign_dir: dir,
    statement,
    change: `${knobName} ${from} -> ${to}`,
    expected_metric: "Combined Step TFLOPS",
    expected_direction: "increase",
    expected_size_pct: expectedPct,
    rule11_bucket: bucket,
    files: ["gemm_config.h"],
  });
  check(begun.round === n, `round number ${begun.round} is ${n}`);
  setKnob(knobName, from, to);
}

try {
  const { tools } = await client.listTools();
  const names = new Set(tools.map((t) => t.name));
  for (const t of ["define_target", "confirm_target", "prepare_environment", "read_tips", "run_baseline", "begin_round",
                   "rebuild_kernel", "run_tests", "run_quick_bench", "validate_round", "accept_or_revert",
                   "termination_check", "final_acceptance", "report", "campaign_status", "query_trend",
                   "list_ineffective_directions", "read_best_summary", "query_tips", "append_tip", "parse_bench_csv",
                   "device_info", "poll_job"]) {
    check(names.has(t), `tool ${t} is listed`);
  }
  for (const t of tools) {
    check(t.name.length <= 64 && /^[a-z0-9_]+$/.test(t.name), `tool name ${t.name} is snake_case <= 64`);
    check(t.inputSchema.type === "object", `${t.name} input schema is an object`);
    check(!JSON.stringify(t.inputSchema).includes("$ref"), `${t.name} input schema has no $ref`);
  }
  check(tools.find((t) => t.name === "accept_or_revert").annotations.destructiveHint === true, "accept_or_revert is destructive");
  check(tools.find((t) => t.name === "query_trend").annotations.readOnlyHint === true, "query_trend is read-only");

  // DEFINE_TARGET -> ... -> BASELINE.
  const defined = await call("define_target", { repo_path: "repo", manifest_path: "cpu_gemm.yaml" });
  var dir = defined.campaign_dir;
  log("campaign", defined.campaign_name, "at", dir);
  const early = await call("run_baseline", { campaign_dir: dir }, { expectError: true });
  check(early.includes("Phase now: DEFINE_TARGET") && early.includes("confirm_target"), "out-of-phase refusal names the phase and the tool");
  await call("confirm_target", { campaign_dir: dir, confirm: true, confirmed_by: "e2e-agent" });
  await call("prepare_environment", { campaign_dir: dir });
  await call("read_tips", { campaign_dir: dir });
  let progressEvents = 0;
  const baseline = await call("run_baseline", { campaign_dir: dir }, { onprogress: () => progressEvents++ });
  check(progressEvents > 0, "run_baseline sent progress notifications");
  check(baseline.shapes.length === 5 && baseline.shapes.every((s) => s.check === "PASS"), "baseline: 5 shapes PASS");
  log("baseline aggregate", baseline.aggregate.candidate, "representative", baseline.representative_shapes.join(","));
  // Every A/A session's workers were started together while the tests ran, each pair kept for its
  // session: every session took both (its timing file lists them).
  const runs1 = join(dir, "rounds", "round-1", "artifacts", "runs");
  const aaSpares = readdirSync(runs1).filter((f) => /^r1-aa-\d+-s\d+-timing\.json$/.test(f)).sort()
    .map((f) => JSON.stringify(JSON.parse(readFileSync(join(runs1, f), "utf8")).spare_workers));
  check(aaSpares.length >= 3 && aaSpares.every((s) => s === '["best","candidate"]'),
        `every baseline A/A session took the workers started ahead for it (${aaSpares.join(" ")})`);

  // Round 2: a real speedup, accepted.
  await round(2, { knobName: "GEMM_UNROLL", from: "1", to: "8", statement: "I expect Combined Step TFLOPS to improve because an 8-wide chunk of C is vectorised and kept in registers" });
  const second = await call("begin_round", { campaign_dir: dir, statement: "x", change: "y", expected_size_pct: 1, rule11_bucket: "K1", files: ["gemm.cpp"] }, { expectError: true });
  check(second.includes("round_open"), "a second open round is refused");
  check((await call("rebuild_kernel", { campaign_dir: dir })).ok, "round 2 builds");
  check((await call("run_tests", { campaign_dir: dir })).ok, "round 2 tests pass");
  const quick = await call("run_quick_bench", { campaign_dir: dir });
  check(quick.aggregate.ratio > 1.5, `quick bench shows the speedup (${quick.aggregate.ratio})`);
  // run_tests started both arms' workers ahead, and the next look (here the quick bench: the same
  // command) took them instead of starting its own.
  const runs2 = join(dir, "rounds", "round-2", "artifacts", "runs");
  const spares2 = readdirSync(runs2).filter((f) => f.endsWith("-timing.json"))
    .map((f) => JSON.parse(readFileSync(join(runs2, f), "utf8")).spare_workers);
  check(spares2.some((s) => JSON.stringify(s) === '["best","candidate"]'),
        `a round-2 look took the workers run_tests started ahead (${JSON.stringify(spares2)})`);
  const v2 = await call("validate_round", { campaign_dir: dir });
  // ACCEPT, or ACCEPT_WITH_NOTE when this machine's noise leaves a shape "blind" (MDE above 5%), or
  // AUDIT if a shape jumped more than 10x on this machine (then a person confirms the numbers).
  check(v2.decision.startsWith("ACCEPT") || v2.decision === "AUDIT",
        `round 2 verdict ACCEPT*/AUDIT (got ${v2.decision}: ${JSON.stringify(v2.reasons)})`);
  const audit = {};
  if (v2.decision === "AUDIT") {
    const refused = await call("accept_or_revert", { campaign_dir: dir, ...prose }, { expectError: true });
    check(refused.includes("audit_required"), "an AUDIT verdict is not accepted without a person");
    Object.assign(audit, { audit_confirmed_by: "e2e auditor", audit_note: "scalar -> 8-wide vector code" });
  }
  const d2 = await call("accept_or_revert", { campaign_dir: dir, ...prose, ...audit, key_finding: "vectorised inner chunk" });
  check(d2.status.startsWith("ACCEPTED"), `round 2 accepted (${d2.status})`);

  // Round 3: a regression, rolled back.
  await round(3, { knobName: "GEMM_TILE_N", from: "64", to: "20", statement: "I expect Combined Step TFLOPS to improve because narrower B tiles stay in L1", expectedPct: 5 });
  const v3 = await call("validate_round", { campaign_dir: dir });
  check(v3.decision === "ROLLBACK", `round 3 verdict ROLLBACK (got ${v3.decision})`);
  check(v3.shapes.some((s) => s.verdict === "REGRESSED"), "round 3: some shape REGRESSED");
  const d3 = await call("accept_or_revert", { campaign_dir: dir, ...rollbackProse });
  check(d3.status === "ROLLED BACK" && knob("GEMM_TILE_N") === "64", "round 3 rolled back, TILE_N restored");

  // Round 4: breaks correctness on `odd`, rolled back.
  await round(4, { knobName: "GEMM_K_TAIL_FIX", from: "1", to: "0", statement: "I expect Combined Step TFLOPS to improve because the K remainder loop is skipped", expectedPct: 2 });
  const t4 = await call("run_tests", { campaign_dir: dir });
  check(!t4.ok, "round 4 tests fail");
  const v4 = await call("validate_round", { campaign_dir: dir });
  check(v4.decision === "ROLLBACK" && v4.reasons[0].code === "tests_failed", `round 4 verdict ROLLBACK (got ${v4.decision})`);
  const d4 = await call("accept_or_revert", { campaign_dir: dir, ...rollbackProse });
  check(d4.stagnation_review_required, "two rollbacks in a row: stagnation review required");
  check(knob("GEMM_K_TAIL_FIX") === "1", "round 4 restored");
  const stagnant = await call("begin_round", { campaign_dir: dir, statement: "x", change: "y", expected_size_pct: 1, rule11_bucket: "K1", files: ["gemm_config.h"] }, { expectError: true });
  check(stagnant.includes("stagnation"), "begin_round refused until the stagnation review");
  await call("termination_check", {
    campaign_dir: dir,
    directions: ["blocking: register-block 4 rows of C", "memory: pack B transposed", "blocking: TILE_K 32 for L1"],
  });

  // Round 5: near noise, re-measured (started async, polled).
  await round(5, { knobName: "GEMM_TILE_M", from: "64", to: "48", statement: "I expect Combined Step TFLOPS to improve slightly because smaller row blocks fit L2 better", expectedPct: 1 });
  const started = await call("validate_round", { campaign_dir: dir, async: true });
  check(started.job_id, "async validate_round returned a job id");
  let polled;
  for (let i = 0; i < 60; i++) {
    polled = await call("poll_job", { job_id: started.job_id, wait_seconds: 30 });
    if (polled.state !== "running") break;
  }
  check(polled.state === "finished", `the validation job finished (${polled.state})`);
  const v5 = polled.result;
  log("round 5 near-noise verdict", v5.decision, "after", v5.pairs, "pairs");
  // On a quiet machine the first 6 pairs can already prove every shape SAME; on a noisy one the gate
  // must add pairs instead of deciding. Either way it is never accepted.
  const allSame = (v5.shapes ?? []).length > 0 && v5.shapes.every((s) => s.verdict === "SAME");
  check(v5.pairs > 6 || allSame, `round 5 re-measured (${v5.pairs} pairs) unless every shape was already SAME`);
  check(!v5.decision.startsWith("ACCEPT"), `round 5 is not accepted (got ${v5.decision})`);
  await call("accept_or_revert", { campaign_dir: dir, ...rollbackProse });

  // The end.
  const stop = await call("termination_check", { campaign_dir: dir, user_stop: true });
  check(stop.stop, "termination_check says stop");
  const fin = await call("final_acceptance", { campaign_dir: dir });
  check(fin.tests_ok, "final acceptance tests pass");
  check(fin.aggregate.ratio > 1.5, `final: the best beats the baseline (${fin.aggregate.ratio})`);
  const rep = await call("report", { campaign_dir: dir });
  check(existsSync(rep.report_path), "report.md written");

  // Records and history.
  const status = await call("campaign_status", { campaign_dir: dir });
  check(status.phase === "DONE" && status.ledger_ok && status.accepted_rounds === 1 && status.rolled_back_rounds === 3,
        `status: ${JSON.stringify(status)}`);
  const trend = await call("query_trend", { campaign_dir: dir, limit: 10 });
  check(trend.rows.length === 5 && trend.current_best_round === 2, "trend has 5 rows, best round 2");
  const ineffective = await call("list_ineffective_directions", { campaign_dir: dir });
  check(ineffective.items.map((i) => i.round).join(",") === "3,4,5", "ineffective directions: rounds 3, 4, 5");
  const best = await call("read_best_summary", { campaign_dir: dir });
  check(best.round === 2 && best.body.includes("ACCEPTED"), "best summary is round 2");
  const commits = git("log", "--format=%s").trim().split("\n");
  check(commits.filter((s) => s.startsWith("[optimize]")).length === 1, `exactly one optimize commit: ${commits.join(" | ")}`);
  check(commits[0].startsWith("[optimize] gemm_fp32 CPU round-2: GEMM_UNROLL 1 -> 8"), `commit subject: ${commits[0]}`);
  check(git("status", "--porcelain").trim() === "", "the working tree is clean");
  check(knob("GEMM_UNROLL") === "8" && knob("GEMM_TILE_M") === "64", "the tree is the accepted round");
  for (let n = 1; n <= 5; n++) {
    // Round 4 failed its tests: correctness before performance, so it was never benchmarked.
    for (const f of ["summary.md", "decision.json", ...(n === 4 ? ["artifacts/test.log"] : ["artifacts/benchmark.csv"])]) {
      check(existsSync(join(dir, "rounds", `round-${n}`, f)), `round-${n}/${f} exists`);
    }
    check(existsSync(join(dir, "rounds", `round-${n}`, "kernel_snapshot", "gemm_config.h")), `round-${n} snapshot`);
  }
  const optimize = readFileSync(join(dir, "logs", "optimize.md"), "utf8");
  check(optimize.includes("Final Report") && optimize.includes("Termination"), "optimize.md has the termination check and the final report");
  check(git("ls-files").indexOf(".kopt") < 0, "the campaign directory is not in the repository");
  log("campaign complete:", commits[0]);
} finally {
  await client.close();
}
