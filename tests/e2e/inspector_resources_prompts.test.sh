#!/usr/bin/env bash
# Issue 6, acceptance 2: resources/list, resources/templates/list, resources/read (text, SVG, an
# artifact in a subfolder, a path-escape attempt refused) and prompts/list + prompts/get (skills
# with their arguments filled) through the official MCP Inspector CLI, over stdio and over HTTP.
source "$(dirname "$0")/lib/common.sh"
inspect() { bash "$E2E_DIR/lib/inspector.sh" --cli --format json -q "$@"; }
check() { python3 "$E2E_DIR/clients/assert_json.py" "$@"; }
source "$E2E_DIR/clients/fixture_campaign.sh"

WS=$E2E_TMP/workspace
mkdir -p "$WS"
make_fixture_campaign "$WS"
start_kopt_http --workspace "$WS"
C="kopt://campaign/$FIXTURE_CAMPAIGN"

failed=0
fail() { echo "FAIL [$1]: $2" >&2; failed=1; }

for transport in stdio http; do
  if [[ $transport == stdio ]]; then
    run() { inspect "$@" -- "$KOPT_BIN" serve --workspace "$WS"; }
  else
    run() { inspect --transport http --server-url "$KOPT_URL" "$@"; }
  fi
  out=$(run --method resources/list) || fail $transport "resources/list exited $?"
  check resources-include kopt://campaigns "$C" "$C/manifest" "$C/state" "$C/trend" "$C/report" "$C/report/metric.svg" \
    "$C/round/1/summary" "$C/round/1/decision" "$C/round/1/artifacts/benchmark.csv" "$C/round/2/summary" <<<"$out" ||
    fail $transport "resources/list"
  out=$(run --method resources/templates/list) || fail $transport "resources/templates/list exited $?"
  check templates-include "kopt://campaign/{name}/round/{n}/summary" "kopt://campaign/{name}/round/{n}/artifacts/{file}" \
    "kopt://campaign/{name}/report/heatmap.svg" <<<"$out" || fail $transport "resources/templates/list"
  out=$(run --method resources/read --uri kopt://campaigns) || fail $transport "read campaigns exited $?"
  check contents application/json "\"$FIXTURE_CAMPAIGN\"" <<<"$out" || fail $transport "read kopt://campaigns"
  out=$(run --method resources/read --uri "$C/trend") || fail $transport "read trend exited $?"
  check contents text/markdown "tile 32 -> 64" <<<"$out" || fail $transport "read trend"
  out=$(run --method resources/read --uri "$C/report/metric.svg") || fail $transport "read metric.svg exited $?"
  check contents image/svg+xml "<svg" <<<"$out" || fail $transport "read metric.svg"
  out=$(run --method resources/read --uri "$C/round/2/artifacts/runs%2Fpair-1.csv") || fail $transport "read artifact exited $?"
  check contents text/csv "M64,PASS" <<<"$out" || fail $transport "read artifact in a subfolder"
  if run --method resources/read --uri "$C/round/1/artifacts/..%2F..%2F..%2F..%2F..%2F..%2Fsecret.txt" >"$E2E_TMP/escape.out" 2>&1; then
    fail $transport "a path escaping the campaign was served: $(head -c 300 "$E2E_TMP/escape.out")"
  fi
  grep -q "outside the campaign" "$E2E_TMP/escape.out" && fail $transport "secret content leaked"

  out=$(run --method prompts/list) || fail $transport "prompts/list exited $?"
  check prompts-include kopt kernel-optimize optimize-handoff verify-performance <<<"$out" || fail $transport "prompts/list"
  out=$(run --method prompts/get --prompt-name kernel-optimize --prompt-args target_op=gemm backend=TRITON gpu=gfx942 repo_path=/r) ||
    fail $transport "prompts/get exited $?"
  check prompt-text "Target: \`gemm\` on \`TRITON\` for \`gfx942\`, repository \`/r\`." "begin_round" <<<"$out" ||
    fail $transport "prompts/get kernel-optimize"
  out=$(run --method prompts/get --prompt-name verify-performance) || fail $transport "prompts/get without arguments exited $?"
  check prompt-text "Campaign: \`<campaign_dir>\`" <<<"$out" || fail $transport "prompts/get verify-performance"
  [[ $failed == 0 ]] && echo "ok: $transport"
done
exit $failed
