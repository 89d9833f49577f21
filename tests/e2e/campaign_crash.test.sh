#!/usr/bin/env bash
# kill -9 at ten points of a round, restart, finish the campaign, and
# compare every record with an uninterrupted run (time stamps and measured numbers aside).
#
# Each tool call is one `kopt call` process (a server that lives for one call). In the crashing
# campaign, round k runs with KOPT_FAULT_POINT set to the k-th point: the server SIGKILLs itself
# there, exactly as a kill -9 would. The driver then asks campaign_status, and retries the call
# unless the ledger shows it landed. Uses the fake kernel (tests/e2e/fake_kernel) so 2 x 10 rounds
# take about a minute.
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
command -v git >/dev/null || { echo "git is required" >&2; exit 77; }
command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 77; }
export GIT_AUTHOR_NAME=kopt-e2e GIT_AUTHOR_EMAIL=e2e@example.com GIT_COMMITTER_NAME=kopt-e2e GIT_COMMITTER_EMAIL=e2e@example.com

POINTS=(
  "begin:after-hypothesis"
  "build:after-run"
  "record:after-append:tests_finished"
  "bench:after-pairs"
  "validate:after-pairs"
  "record:after-append:round_validated"
  "decide:after-pending"
  "decide:after-snapshot"
  "decide:after-commit"
  "record:after-append:round_decided"
)

setup() {  # setup WS
  local ws=$1
  mkdir -p "$ws/repo/kernel"
  local src="$KOPT_SOURCE_DIR/tests/e2e/fake_kernel"
  cp "$src/bench.py" "$src/build.py" "$src/test.py" "$src/manifest.yaml" "$ws/repo/"
  cp "$src/kernel/config.ini" "$src/kernel/impl.txt" "$ws/repo/kernel/"
  cp "$src/gitignore" "$ws/repo/.gitignore"
  git -C "$ws/repo" init -q -b main
  git -C "$ws/repo" add -A
  git -C "$ws/repo" commit -q -m "fake kernel"
}

# kcall WS FAULT TOOL JSON: one server process; prints its output; returns its exit status.
kcall() {
  local ws=$1 fault=$2 tool=$3 args=$4 rc=0
  if [[ -n "$fault" ]]; then
    KOPT_FAULT_POINT="$fault" KOPT_FAULT_MARKER="$ws/fault-fired-$fault_round" \
      "$KOPT_BIN" call --workspace "$ws" "$tool" "$args" >"$ws/last.out" 2>&1 || rc=$?
  else
    "$KOPT_BIN" call --workspace "$ws" "$tool" "$args" >"$ws/last.out" 2>&1 || rc=$?
  fi
  return $rc
}

last_event() { tail -n 1 "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["type"])'; }

# step WS FAULT EVENT TOOL JSON: runs the step; after a kill -9, restarts and retries unless the
# ledger shows the step landed.
step() {
  local ws=$1 fault=$2 event=$3 tool=$4 args=$5 rc=0 attempt
  local ledger="$ws/repo/.kopt/campaigns/$CAMPAIGN/ledger.jsonl"
  for attempt in 1 2 3; do
    rc=0
    kcall "$ws" "$fault" "$tool" "$args" || rc=$?
    if [[ $rc -eq 0 ]]; then return 0; fi
    if [[ $rc -ne 137 && $rc -ne 9 ]]; then
      echo "e2e: $tool failed (rc $rc):" >&2
      cat "$ws/last.out" >&2
      return 1
    fi
    echo "  killed -9 in $tool at $fault"
    # After a crash: the status must answer, and say what was interrupted (if anything was).
    "$KOPT_BIN" call --workspace "$ws" campaign_status "{\"campaign_dir\":\"repo/.kopt/campaigns/$CAMPAIGN\"}" >"$ws/status.out" 2>&1 \
      || { echo "e2e: campaign_status failed after a crash:" >&2; cat "$ws/status.out" >&2; return 1; }
    [[ -f "$ledger" && "$(last_event "$ledger")" == "$event" ]] && return 0
  done
  echo "e2e: $tool did not complete after restarts" >&2
  return 1
}

run_campaign() {  # run_campaign WS CRASH(0|1)
  local ws=$1 crash=$2 r fault dir speed
  setup "$ws"
  CAMPAIGN=fake_gemm_cpu_cpu_20260412
  dir="repo/.kopt/campaigns/$CAMPAIGN"
  local D="\"campaign_dir\":\"$dir\""
  fault_round=0
  step "$ws" "" target_defined define_target '{"repo_path":"repo","manifest_path":"repo/manifest.yaml","created":"2026-04-12 09:30"}'
  step "$ws" "" target_confirmed confirm_target "{$D,\"confirm\":true,\"confirmed_by\":\"e2e\"}"
  step "$ws" "" environment_prepared prepare_environment "{$D}"
  step "$ws" "" tips_read read_tips "{$D}"
  step "$ws" "" baseline_recorded run_baseline "{$D}"
  speed=100
  for r in $(seq 2 $((1 + ${#POINTS[@]}))); do
    fault_round=$r
    fault=""
    [[ $crash -eq 1 ]] && fault=${POINTS[$((r - 2))]}
    step "$ws" "$fault" round_begun begin_round "{$D,\"statement\":\"I expect more TFLOPS because of round $r\",\"change\":\"speed knob round $r\",\"expected_size_pct\":10,\"rule11_bucket\":\"K1\",\"files\":[\"kernel/config.ini\"]}"
    # Even rounds speed up (ACCEPT), odd rounds slow down (ROLLBACK).
    if (( r % 2 == 0 )); then speed=$((speed + 25)); printf 'speed=%s\n' "$speed" >"$ws/repo/kernel/config.ini"
    else printf 'speed=%s\n' "$((speed - 20))" >"$ws/repo/kernel/config.ini"; fi
    step "$ws" "$fault" build_finished rebuild_kernel "{$D}"
    step "$ws" "$fault" tests_finished run_tests "{$D}"
    step "$ws" "$fault" bench_finished run_quick_bench "{$D,\"pairs\":3}"
    step "$ws" "$fault" round_validated validate_round "{$D}"
    step "$ws" "$fault" round_decided accept_or_revert "{$D,\"attribution\":\"the knob\",\"next_direction\":\"more knob\",\"root_cause\":\"slower\",\"lesson\":\"faster is better\"}"
    if [[ $crash -eq 1 && ! -f "$ws/fault-fired-$r" ]]; then
      echo "e2e: the fault point ${POINTS[$((r - 2))]} was never reached in round $r" >&2
      return 1
    fi
  done
  fault_round=0
  step "$ws" "" termination_checked termination_check "{$D,\"user_stop\":true}"
}

echo "== uninterrupted campaign"
run_campaign "$E2E_TMP/ref" 0
echo "== campaign killed at ${#POINTS[@]} points"
run_campaign "$E2E_TMP/crash" 1

python3 - "$E2E_TMP/ref" "$E2E_TMP/crash" "$CAMPAIGN" <<'PY'
import json, os, re, subprocess, sys
ref, crash, name = sys.argv[1:4]
def campaign(ws): return os.path.join(ws, "repo", ".kopt", "campaigns", name)
def norm(text, ws=None):
    for w in (ref, crash):
        text = text.replace(w, "<ws>")
    text = re.sub(r"\b(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", "<sha>", text)
    return re.sub(r"[-+]?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", "#", text)
def events(ws):
    out = []
    for line in open(os.path.join(campaign(ws), "ledger.jsonl")):
        e = json.loads(line)
        out.append((e["type"], e["round"], e["payload"].get("status") or e["payload"].get("decision")))
    return out
failures = []
def same(what, a, b):
    if a != b:
        failures.append(what)
        print("DIFFERS:", what)
same("ledger events (type, round, decision)", events(ref), events(crash))
rounds = sorted(os.listdir(os.path.join(campaign(ref), "rounds")))
for r in rounds:
    for f in ("summary.md", "decision.json", "hypothesis.json"):
        p = os.path.join("rounds", r, f)
        a = os.path.join(campaign(ref), p); b = os.path.join(campaign(crash), p)
        if os.path.exists(a) or os.path.exists(b):
            same(p, norm(open(a).read()) if os.path.exists(a) else None, norm(open(b).read()) if os.path.exists(b) else None)
    for d in ("kernel_snapshot",):
        a = sorted(os.listdir(os.path.join(campaign(ref), "rounds", r, d)))
        b = sorted(os.listdir(os.path.join(campaign(crash), "rounds", r, d)))
        same("rounds/%s/%s listing" % (r, d), a, b)
for f in ("logs/performance_trend.md", "logs/optimize.md"):
    same(f, norm(open(os.path.join(campaign(ref), f)).read()), norm(open(os.path.join(campaign(crash), f)).read()))
git = lambda ws, *a: subprocess.run(["git", "-C", os.path.join(ws, "repo"), *a], capture_output=True, text=True).stdout
same("git subjects", git(ref, "log", "--format=%s"), git(crash, "log", "--format=%s"))
same("kernel config", open(os.path.join(ref, "repo/kernel/config.ini")).read(), open(os.path.join(crash, "repo/kernel/config.ini")).read())
same("clean tree", git(crash, "status", "--porcelain"), "")
for ws in (ref, crash):
    for p in os.listdir(os.path.join(campaign(ws))):
        if p.endswith(".tmp") or ".tmp." in p:
            failures.append("temp file left: " + p)
if failures:
    sys.exit("records differ: " + "; ".join(failures))
print("records identical after", len(events(crash)), "ledger events")
PY
