#!/usr/bin/env bash
# docs/robustness.md, item 7: a kopt killed with -9 while a build runs leaves the build running
# beside whatever runs next. The next kopt (`kopt serve` or `kopt call`) ends every process marked
# with a server that no longer runs before it runs anything. Here the killed one is a `kopt call
# run_baseline` in the middle of the campaign's build (a build that waits in `sleep 3133.7`), and
# the next one is a `kopt serve` that only starts and reads EOF.
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
require_commands git pgrep
export_git_identity

ws="$E2E_TMP/ws"
fake_kernel_repo "$ws/repo"
# A build that never ends on its own: a child process, as a compiler would be.
printf 'import subprocess\nsubprocess.run(["sleep", "3133.7"])\n' >"$ws/repo/build.py"
git -C "$ws/repo" commit -qam "a build that hangs"

kcall() { "$KOPT_BIN" call --workspace "$ws" "$@"; }
kcall define_target '{"repo_path":"repo","manifest_path":"repo/manifest.yaml","created":"2026-04-12 09:30"}' >"$E2E_TMP/define.json"
dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structuredContent"]["campaign_dir"])' "$E2E_TMP/define.json")
D="\"campaign_dir\":\"$dir\""
kcall confirm_target "{$D,\"confirm\":true,\"confirmed_by\":\"e2e\"}" >/dev/null
kcall prepare_environment "{$D}" >/dev/null
kcall read_tips "{$D}" >/dev/null

build_alive() { pgrep -f '^sleep 3133\.7$' >/dev/null; }
"$KOPT_BIN" call --workspace "$ws" run_baseline "{$D}" >"$E2E_TMP/baseline.out" 2>&1 &  # $! is kopt itself
call_pid=$!
_e2e_pids+=("$call_pid")
for _ in $(seq 1 600); do build_alive && break; kill -0 "$call_pid" 2>/dev/null || break; sleep 0.05; done
build_alive || { echo "FAIL: the build never started"; cat "$E2E_TMP/baseline.out"; exit 1; }
kill -9 "$call_pid"
wait "$call_pid" 2>/dev/null || true
# The build outlives its kopt (what this test is about); another test's kopt, started meanwhile
# under a parallel ctest, may already have ended it, which is the behaviour under test as well.

"$KOPT_BIN" serve --workspace "$ws" </dev/null >/dev/null 2>"$E2E_TMP/serve.err"
# Any kopt that starts ends a dead one's leftovers: under a parallel ctest another test's kopt call
# may get there first, and then this serve has nothing left to end (and says nothing).
said=$(grep -E "^kopt serve: ended" "$E2E_TMP/serve.err" || true)
if [[ -n "$said" ]] && ! grep -Eq "^kopt serve: ended [1-9][0-9]* process\(es\) left by kopt server\(s\) that died \([0-9]+:[0-9]+\)" <<<"$said"; then
  echo "FAIL: kopt serve's report is malformed: $said"; exit 1
fi
for _ in $(seq 1 100); do build_alive || break; sleep 0.05; done
if build_alive; then
  pkill -9 -f '^sleep 3133\.7$' || true
  echo "FAIL: the killed call's build still runs after the next kopt started"
  exit 1
fi
echo "PASS: a kopt call killed with -9 mid-build: its build is gone once the next kopt started (${said:-ended by another kopt of a parallel test})"
