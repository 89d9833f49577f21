#!/usr/bin/env bash
# Issue 8, acceptance 1 through the campaign engine: the CPU kernel campaign with `executor: slurm`
# on a real single-node Slurm (tools/ci/slurm-up.sh). Every build, test and bench of the campaign
# is a Slurm job: srun steps in one campaign, sbatch jobs in another. Then, through the same tools:
# a bench whose node dies mid-run is a clear error and records no measurement; a bench over its
# time limit is stopped and its job is gone; a cancelled long bench leaves no job and no process;
# a request larger than the node is refused at once.
# Each tool call is `kopt call` (the engine in-process; the campaign lives on disk between calls).
# ctest: RESOURCE_LOCK timed_cpu_campaign (its verdicts read CPU timings; see tests/CMakeLists.txt)
set -uo pipefail
. "$KOPT_SOURCE_DIR/tests/fixtures/exec/slurm_test_lib.sh"
. "$KOPT_SOURCE_DIR/tests/e2e/lib/cpu_kernel_repo.sh"
: "${KOPT_BIN:?run through ctest, or set KOPT_BIN to the kopt binary}"
command -v c++ >/dev/null || skip "a C++ compiler is required"
command -v python3 >/dev/null || skip "python3 is required (the CPU kernel's test_command)"
start_slurm 0
W=$WORK
export GIT_AUTHOR_NAME=kopt-e2e GIT_AUTHOR_EMAIL=e2e@example.com GIT_COMMITTER_NAME=kopt-e2e GIT_COMMITTER_EMAIL=e2e@example.com
export KOPT_TIPS_ROOT="$W/tips"

# tool NAME JSON: one tool call; sets $out (the result JSON) and $rc (0 ok, 1 isError).
tool() { out=$("$KOPT_BIN" call "$1" "$2" --workspace "$W" 2>"$W/call.err"); rc=$?; }
# jq-free field access: json PATH (python expression on r = structuredContent, or the text).
json() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); sc=r.get("structuredContent") or {}; t=r["content"][0]["text"] if r.get("content") else ""; print(eval(sys.argv[2]))' "$out" "$1"; }
# Slurm's own record of finished jobs (MinJobAge keeps them): "name|state|batch|workdir" per job.
jobs_under() { scontrol -o show jobs 2>/dev/null | python3 -c '
import re, sys
for line in sys.stdin:
    f = dict(re.findall(r"(\w+)=(\S*)", line))
    if f.get("WorkDir", "").startswith(sys.argv[1]):
        print("|".join([f.get("JobName", ""), f.get("JobState", ""), f.get("BatchFlag", ""), f["WorkDir"]]))' "$1"; }

# new_campaign NAME EXECUTOR_YAML [KEY: VALUE ...]: a fresh repository holding the CPU kernel, and
# a campaign on it (manifests/cpu_gemm.yaml with the executor and the given top-level keys
# replaced) confirmed, prepared and past the tips; sets $repo and $cdir.
new_campaign() {
  repo="$W/$1/repo"
  make_cpu_kernel_repo "$repo"
  # Few pairs: this test is about where commands run, not about the gate (CI time).
  python3 - "$KOPT_SOURCE_DIR/manifests/cpu_gemm.yaml" "executor: $2" "gate: {pairs: 4, max_pairs: 4}" "bench: {protocol: csv}" "${@:3}" >"$W/$1/manifest.yaml" <<'PY'
import sys
lines, overrides = open(sys.argv[1]).read().splitlines(), sys.argv[2:]
keys = {o.split(":", 1)[0] for o in overrides}
out, skipping = [], False
for line in lines:
    top = line[:1] not in ("", " ", "#")
    if top:
        skipping = line.split(":", 1)[0] in keys
    if not skipping:
        out.append(line)
print("\n".join(out + overrides))
PY
  tool define_target "$(python3 -c 'import json,sys; print(json.dumps({"repo_path": sys.argv[1], "manifest_yaml": open(sys.argv[2]).read()}))' "$repo" "$W/$1/manifest.yaml")"
  [ "$rc" = 0 ] || { bad "$1: define_target"; return 1; }
  cdir=$(json 'sc["campaign_dir"]')
  tool confirm_target "{\"campaign_dir\":\"$cdir\",\"confirm\":true,\"confirmed_by\":\"slurm e2e\"}" && [ "$rc" = 0 ] || { bad "$1: confirm_target"; return 1; }
  tool prepare_environment "{\"campaign_dir\":\"$cdir\"}"
  [ "$rc" = 0 ] || { bad "$1: prepare_environment"; return 1; }
  tool read_tips "{\"campaign_dir\":\"$cdir\"}"
  [ "$rc" = 0 ] || { bad "$1: read_tips"; return 1; }
}

begin_round() {  # begin_round CHANGE: a one-setting round on gemm_config.h
  tool begin_round "{\"campaign_dir\":\"$cdir\",\"statement\":\"I expect Combined Step TFLOPS to increase because $1 changes the inner loop\",\"change\":\"$1\",\"expected_size_pct\":20,\"rule11_bucket\":\"K1\",\"files\":[\"gemm_config.h\"]}"
}

# --- 1. srun: baseline and one whole round, every command a Slurm step ------------------------
if new_campaign srun "{kind: slurm, partition: debug, mode: srun}"; then
  tool run_baseline "{\"campaign_dir\":\"$cdir\"}"
  check "srun: the baseline is measured" test "$rc/$(json 'sc.get("phase")')" = 0/ANALYZE
  jobs=$(jobs_under "$W/srun")
  check "srun: the baseline's build, test and benches ran as Slurm jobs ($(printf '%s\n' "$jobs" | grep -c .) jobs)" \
    test "$(printf '%s\n' "$jobs" | grep -c '|COMPLETED|0|')" -ge 3
  check "srun: no job was a batch job, none failed" test -z "$(printf '%s\n' "$jobs" | grep -v '|COMPLETED|0|')"
  before=$(printf '%s\n' "$jobs" | grep -c .)
  begin_round "GEMM_UNROLL 1 -> 4"
  sed -i 's/#define GEMM_UNROLL 1$/#define GEMM_UNROLL 4/' "$repo/gemm_config.h"
  tool rebuild_kernel "{\"campaign_dir\":\"$cdir\"}" && tool run_tests "{\"campaign_dir\":\"$cdir\"}"
  check "srun: the round's rebuild and tests pass on Slurm" test "$rc/$(json 'sc.get("ok")')" = 0/True
  tool validate_round "{\"campaign_dir\":\"$cdir\"}"
  decision=$(json 'sc.get("decision")')
  check "srun: the round is validated with a verdict ($decision)" \
    bash -c '[[ "$1" == 0 && "$2" =~ ^(ACCEPT|ACCEPT_WITH_NOTE|AUDIT|ROLLBACK)$ ]]' _ "$rc" "$decision"
  after=$(jobs_under "$W/srun" | grep -c .)
  check "srun: the validation's A/B pairs were Slurm jobs too ($((after - before)) more)" test "$after" -ge $((before + 4))
  tool accept_or_revert "{\"campaign_dir\":\"$cdir\",\"attribution\":\"wider column chunk\",\"next_direction\":\"tiles\",\"key_finding\":\"unroll\",\"cache_key\":\"none\",\"transfer_decision\":\"ACCEPT-as-real\",\"estimated_real_gain\":\"kernel-internal\",\"audit_confirmed_by\":\"slurm e2e\",\"audit_note\":\"a scalar to vector change can jump; the per-call checks passed\"}"
  status=$(json 'sc.get("status")')
  check "srun: the decision is recorded in git ($status)" \
    bash -c '[[ "$1" == 0 && "$2" =~ ^(ACCEPTED|ACCEPTED\ WITH\ NOTE|ROLLED\ BACK)$ ]]' _ "$rc" "$status"
fi

# kopt doctor on the same manifest: the executor, its partition and what the node offers.
out=$("$KOPT_BIN" doctor --manifest "$W/srun/manifest.yaml" --workspace "$W")
check "doctor --manifest: the Slurm executor is usable on partition debug" \
  bash -c '[[ "$1" == *"[ok  ] executor: slurm"* && "$1" == *"partition debug"* ]]' _ "$out"

# --- 2. sbatch: the baseline as batch jobs; then the node dies during a quick bench -------------
if new_campaign sbatch "{kind: slurm, partition: debug, mode: sbatch}"; then
  tool run_baseline "{\"campaign_dir\":\"$cdir\"}"
  check "sbatch: the baseline is measured" test "$rc/$(json 'sc.get("phase")')" = 0/ANALYZE
  check "sbatch: every command was a batch job" \
    test -z "$(jobs_under "$W/sbatch" | grep -v '|COMPLETED|1|')"
  begin_round "GEMM_UNROLL 1 -> 2"
  sed -i 's/#define GEMM_UNROLL 1$/#define GEMM_UNROLL 2/' "$repo/gemm_config.h"
  tool rebuild_kernel "{\"campaign_dir\":\"$cdir\"}"
  check "sbatch: rebuilt" test "$rc" = 0
  ledger_before=$(wc -l <"$cdir/ledger.jsonl")
  # The quick bench runs while this script kills the node (slurmd, its job steps and the job's
  # processes, as a power loss would) as soon as one of the bench's jobs is RUNNING. A job that
  # was between two runs waits on the DOWN node instead: lost too, after kopt's grace of 60 s.
  ( "$KOPT_BIN" call run_quick_bench "{\"campaign_dir\":\"$cdir\"}" --workspace "$W" >"$W/lost.json" 2>"$W/lost.err"; echo $? >"$W/lost.rc" ) &
  caller=$!
  for _ in $(seq 1 600); do
    squeue -h -t RUNNING -o '%Z' | grep -q "^$W/sbatch" && break
    kill -0 $caller 2>/dev/null || break
    sleep 0.1
  done
  kill_node
  wait $caller
  out=$(cat "$W/lost.json")
  check "sbatch: a bench whose node died is an error, not a result" test "$(cat "$W/lost.rc")" = 1
  check "sbatch: the error says the node is lost" bash -c '[[ "$1" == *"lost"* ]]' _ "$(json 't')"
  check "sbatch: no measurement was recorded for it" \
    bash -c '! tail -n +$(($2 + 1)) "$1" | grep -q "quick_bench_measured\|round_validated"' _ "$cdir/ledger.jsonl" "$ledger_before"
  bash "$KOPT_SOURCE_DIR/tools/ci/slurm-up.sh" "$SLURM_DIR" >/dev/null 2>&1 || bad "slurm restarted after the node loss"
  tool run_quick_bench "{\"campaign_dir\":\"$cdir\"}"
  check "sbatch: once the node is back the same bench measures" test "$rc" = 0
fi

# --- 3. kopt's time limit on a Slurm job: the bench is stopped and its job is gone --------------
# The bench is a 30 s sleep (sh ignores the arguments kopt appends) under a 1 s limit.
if new_campaign limit "{kind: slurm, partition: debug, mode: srun}" "timeouts: {build: 300, test: 300, bench: 1, hang: 120}" \
    "benchmark_command: sh -c 'sleep 30' bench" "quick_command: sh -c 'sleep 30' bench"; then
  tool run_baseline "{\"campaign_dir\":\"$cdir\"}"
  check "limit: a bench over its 1 s limit fails the baseline" test "$rc" = 1
  check "limit: the error says it timed out" bash -c '[[ "$1" == *"timed out"* ]]' _ "$(json 't')"
  check "limit: nothing of the campaign is left in the queue" test -z "$(squeue -h -o '%Z' | grep "^$W/limit")"
fi

# --- 4. a long job cancelled (Ctrl-C on kopt call = MCP's notifications/cancelled) --------------
# sleeps_under DIR: pids of `sleep` processes whose working directory is under DIR.
sleeps_under() { local p; for p in $(pgrep -x sleep); do [[ "$(readlink "/proc/$p/cwd")" == "$1"* ]] && echo "$p"; done; }
if new_campaign cancel "{kind: slurm, partition: debug, mode: sbatch}" \
    "benchmark_command: sh -c 'sleep 300' bench" "quick_command: sh -c 'sleep 300' bench"; then
  "$KOPT_BIN" call run_baseline "{\"campaign_dir\":\"$cdir\"}" --workspace "$W" >"$W/cancel.json" 2>/dev/null &
  caller=$!
  for _ in $(seq 1 1200); do
    [ -n "$(sleeps_under "$W/cancel")" ] && break
    kill -0 $caller 2>/dev/null || break
    sleep 0.1
  done
  check "cancel: the bench's job is running" test -n "$(sleeps_under "$W/cancel")"
  kill -TERM $caller
  wait $caller
  out=$(cat "$W/cancel.json")
  check "cancel: the baseline is cancelled" bash -c '[[ "$1" == *"cancelled"* ]]' _ "$(json 't')"
  check "cancel: its Slurm job is gone" test -z "$(squeue -h -o '%Z' | grep "^$W/cancel")"
  check "cancel: its processes are gone" test -z "$(sleeps_under "$W/cancel")"
  check "cancel: no baseline was recorded" bash -c '! grep -q baseline_recorded "$1"' _ "$cdir/ledger.jsonl"
fi

# --- 5. a request larger than the node: refused at submit, not left pending --------------------
if new_campaign big "{kind: slurm, partition: debug, mode: srun, extra_args: [--cpus-per-task=999]}"; then
  t0=$SECONDS
  tool run_baseline "{\"campaign_dir\":\"$cdir\"}"
  check "big: the oversized request fails the baseline" test "$rc" = 1
  check "big: the error is Slurm's refusal, at once ($((SECONDS - t0)) s)" \
    bash -c '[[ "$1" == *"could not"* || "$1" == *"refused"* || "$1" == *"failed to start"* || "$1" == *"Requested node configuration"* ]]' _ "$(json 't')"
  check "big: no job of it is pending" test -z "$(squeue -h -o '%Z' | grep "^$W/big")"
fi
check "no job left in the queue" test -z "$(squeue -h -o %i)"
finish
