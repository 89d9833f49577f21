#!/usr/bin/env bash
# The official MCP conformance suite (0.1.16, pinned in package.json)
# passes all 30 active server scenarios against `kopt serve --http --conformance-fixtures`, with no
# expected-failures file. Sampling and elicitation go through the suite's client over SSE.
source "$(dirname "$0")/lib/common.sh"

start_kopt_http --conformance-fixtures
suite="$E2E_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
out="$E2E_TMP/conformance.txt"
status=0
"$NODE22" "$suite" server --url "$KOPT_URL" >"$out" 2>&1 || status=$?
sed -n '/=== SUMMARY ===/,$p' "$out"

fail() {
  echo "FAIL: $*" >&2
  echo "--- full conformance output ---" >&2
  cat "$out" >&2
  echo "--- kopt stderr ---" >&2
  cat "$KOPT_LOG" >&2
  exit 1
}
[[ $status -eq 0 ]] || fail "conformance exited with $status"
total=$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out" | tail -1) || fail "no Total line"
[[ "$total" =~ ", 0 failed" ]] || fail "$total"
scenarios=$(grep -cE '^✓ ' "$out" || true)
failed=$(grep -cE '^✗ ' "$out" || true)
[[ "$scenarios" -eq 30 && "$failed" -eq 0 ]] || fail "expected 30 passing scenarios, got $scenarios passing and $failed failing"
echo "PASS: conformance 0.1.16 active suite, 30/30 scenarios ($total)"
