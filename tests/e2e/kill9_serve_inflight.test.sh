#!/usr/bin/env bash
# docs/robustness.md, item 7, with several calls in flight: one `kopt serve` session runs
# run_baseline on two campaigns at once (each build waits in a sleep of its own, as a compiler
# would run) and answers a ping meanwhile; the server is killed with -9. The next kopt ends both
# builds before it runs anything, and both campaigns' records stay readable: campaign_status
# answers for each, with the interrupted baseline reported, and nothing of the dead server runs.
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
require_commands git pgrep
export_git_identity

ws="$E2E_TMP/ws"
kcall() { "$KOPT_BIN" call --workspace "$ws" "$@"; }
dirs=()
for n in 1 2; do
  fake_kernel_repo "$ws/repo$n"
  printf 'import subprocess\nsubprocess.run(["sleep", "3134.%s"])\n' "$n" >"$ws/repo$n/build.py"
  git -C "$ws/repo$n" commit -qam "a build that hangs"
  kcall define_target "{\"repo_path\":\"repo$n\",\"manifest_path\":\"repo$n/manifest.yaml\",\"created\":\"2026-04-12 09:3$n\"}" >"$E2E_TMP/define$n.json"
  dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structuredContent"]["campaign_dir"])' "$E2E_TMP/define$n.json")
  dirs+=("$dir")
  D="\"campaign_dir\":\"$dir\""
  kcall confirm_target "{$D,\"confirm\":true,\"confirmed_by\":\"e2e\"}" >/dev/null
  kcall prepare_environment "{$D}" >/dev/null
  kcall read_tips "{$D}" >/dev/null
done
[ "${dirs[0]}" != "${dirs[1]}" ] || { echo "FAIL: the two campaigns share a directory"; exit 1; }

builds_alive() { pgrep -f '^sleep 3134\.[12]$' | wc -l; }
mkfifo "$E2E_TMP/in"
"$KOPT_BIN" serve --workspace "$ws" <"$E2E_TMP/in" >"$E2E_TMP/serve.out" 2>"$E2E_TMP/serve.err" &
serve_pid=$!
_e2e_pids+=("$serve_pid")
exec 3>"$E2E_TMP/in"
send() { printf '%s\n' "$1" >&3; }
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"run_baseline\",\"arguments\":{\"campaign_dir\":\"${dirs[0]}\"}}}"
send "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"run_baseline\",\"arguments\":{\"campaign_dir\":\"${dirs[1]}\"}}}"
for _ in $(seq 1 1200); do [ "$(builds_alive)" -ge 2 ] && break; kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.05; done
[ "$(builds_alive)" -ge 2 ] || { echo "FAIL: both builds should run at once"; cat "$E2E_TMP/serve.err"; exit 1; }
# The session still answers while both calls run.
send '{"jsonrpc":"2.0","id":4,"method":"ping"}'
for _ in $(seq 1 200); do grep -q '"id":4' "$E2E_TMP/serve.out" && break; sleep 0.05; done
python3 - "$E2E_TMP/serve.out" <<'PY' || { echo "FAIL: no answer to a ping while two calls run"; cat "$E2E_TMP/serve.out"; exit 1; }
import json, sys
answers = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert any(a.get("id") == 4 and a.get("result") == {} for a in answers)
PY
kill -9 "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
exec 3>&-

# The next kopt ends both builds before anything else (another test's kopt of a parallel ctest may
# get there first: that is the behaviour under test as well).
for n in 0 1; do
  kcall campaign_status "{\"campaign_dir\":\"${dirs[$n]}\"}" >"$E2E_TMP/status$n.json" 2>"$E2E_TMP/status$n.err" ||
    { echo "FAIL: campaign_status after the kill"; cat "$E2E_TMP/status$n.err"; exit 1; }
done
for _ in $(seq 1 100); do [ "$(builds_alive)" -eq 0 ] && break; sleep 0.05; done
if [ "$(builds_alive)" -ne 0 ]; then
  pkill -9 -f '^sleep 3134\.[12]$' || true
  echo "FAIL: a build of the killed server still runs after the next kopt started"; exit 1
fi
for n in 0 1; do
  python3 - "$E2E_TMP/status$n.json" <<'PY' || { cat "$E2E_TMP/status$n.json"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert not r.get("isError"), "campaign_status failed: %s" % r
s = r["structuredContent"]
# The ledger is intact, no baseline was recorded, and the interrupted one is reported.
assert s["ledger_ok"] is True and s["integrity"].startswith("ok"), s["integrity"]
assert s["baseline_commit"] == "" and s["last_round"] == 0, s
assert (s.get("pending_step") or "").startswith("baseline"), s.get("pending_step")
assert "Interrupted: a baseline of round-1 was interrupted" in r["content"][0]["text"], r["content"][0]["text"]
PY
done
echo "PASS: kopt serve killed with -9 during two run_baseline calls and a ping: both builds ended by the next kopt, both campaigns' status readable"
