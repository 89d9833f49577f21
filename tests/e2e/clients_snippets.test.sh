#!/usr/bin/env bash
# Issue 6: every client snippet in clients/ parses, uses the fields its client reads, and
# the official MCP Inspector (v2, Node 22) connects to kopt with it, over stdio and over HTTP:
# tools/list shows the catalogue, and resources/read answers from the workspace the snippet
# implies (a stdio server runs in the client's project folder).
source "$(dirname "$0")/lib/common.sh"
SRC=$(cd "$E2E_DIR/../.." && pwd)
CLIENTS=$SRC/clients
inspect() { bash "$E2E_DIR/lib/inspector.sh" --cli --format json -q "$@"; }
check() { python3 "$E2E_DIR/clients/assert_json.py" "$@"; }
source "$E2E_DIR/clients/fixture_campaign.sh"

WS=$E2E_TMP/workspace
mkdir -p "$WS"
make_fixture_campaign "$WS"
start_kopt_http --workspace "$WS"

failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

# The snippets the docs promise; a missing one is a failure, not a smaller loop.
expected=(claude-code.mcp.json claude-code-http.mcp.json vscode.mcp.json vscode-http.mcp.json
          cursor.mcp.json cursor-http.mcp.json gemini.settings.json gemini-http.settings.json)
for name in "${expected[@]}"; do [[ -f "$CLIENTS/$name" ]] || fail "clients/$name is missing"; done

manifest_uri="kopt://campaign/$FIXTURE_CAMPAIGN/manifest"
for snippet in "$CLIENTS"/*.json; do
  name=$(basename "$snippet")
  python3 -m json.tool "$snippet" >/dev/null || { fail "$name does not parse"; continue; }
  config="$E2E_TMP/${name%.json}.inspector.json"
  "$NODE22" "$E2E_DIR/clients/snippet_to_inspector.mjs" "$snippet" "$KOPT_BIN" "$KOPT_PORT" "$WS" >"$config" ||
    { fail "$name: not a valid snippet for its client"; continue; }
  out=$(inspect --config "$config" --server turbo --method tools/list) || { fail "$name: tools/list failed"; continue; }
  check tools-include define_target run_baseline validate_round report parse_bench_csv <<<"$out" ||
    fail "$name: tools/list lacks the catalogue"
  out=$(inspect --config "$config" --server turbo --method resources/read --uri "$manifest_uri") ||
    { fail "$name: resources/read failed"; continue; }
  check contents application/yaml "target_op: gemm" <<<"$out" || fail "$name: wrong manifest contents"
  echo "ok: $name"
done

# Claude Code's one-liner: the words after `--` are what Claude Code runs.
sh -n "$CLIENTS/claude-code.sh" || fail "claude-code.sh is not valid sh"
line=$(grep -E '^claude mcp add turbo -- ' "$CLIENTS/claude-code.sh") || fail "claude-code.sh lacks 'claude mcp add turbo -- ...'"
read -r -a words <<<"${line#*-- }"
[[ "${words[0]}" == kopt ]] || fail "claude-code.sh runs '${words[0]}', expected kopt"
out=$(cd "$WS" && inspect --method tools/list "$KOPT_BIN" "${words[@]:1}") || fail "claude-code.sh command: tools/list failed"
check tools-include define_target <<<"$out" || fail "claude-code.sh command: tools missing"
echo "ok: claude-code.sh"

exit $failed
