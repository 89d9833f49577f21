#!/usr/bin/env bash
# Deeply nested JSON (docs/robustness.md, item 1): 150,000 nested arrays in one message overflowed the
# server's stack (SIGSEGV) over stdio, and over HTTP one unauthenticated POST killed every
# session. kopt answers -32700 and keeps serving, on both transports.
source "$(dirname "$0")/lib/common.sh"

deep=$(printf '%*s' 150000 '' | tr ' ' '[')$(printf '%*s' 150000 '' | tr ' ' ']')
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deep","version":"1"}}}'

# stdio: the deep message, then a ping that must still be answered.
{
  echo "$init"
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":'"$deep"'}}'
  echo '{"jsonrpc":"2.0","id":3,"method":"ping"}'
} > "$E2E_TMP/deep.jsonl"
rc=0
"$KOPT_BIN" serve < "$E2E_TMP/deep.jsonl" > "$E2E_TMP/stdio.out" 2> "$E2E_TMP/stdio.err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL: kopt serve exited $rc on a deeply nested message"; exit 1; }
grep -q '"code":-32700,"message":"Parse error: arrays and objects nest deeper than 256 levels' "$E2E_TMP/stdio.out" ||
  { echo "FAIL: no -32700 for the nested message:"; cut -c1-300 "$E2E_TMP/stdio.out"; exit 1; }
grep -q '"id":3,"jsonrpc":"2.0","result":{}' "$E2E_TMP/stdio.out" ||
  { echo "FAIL: the ping after it was not answered"; exit 1; }

# HTTP: the same body before any session, then a normal initialize on the same server.
start_kopt_http
echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":'"$deep"'}' > "$E2E_TMP/deep.json"
"$NODE22" --input-type=module - "$KOPT_URL" "$E2E_TMP/deep.json" "$init" <<'JS'
import { readFileSync } from "node:fs";
const [url, deepFile, init] = process.argv.slice(2);
const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const deep = await fetch(url, { method: "POST", headers, body: readFileSync(deepFile, "utf8") });
const text = await deep.text();
if (deep.status !== 400 || !text.includes("-32700")) {
  console.log(`FAIL: HTTP answered ${deep.status} ${text.slice(0, 200)} to the nested body`);
  process.exit(1);
}
const after = await fetch(url, { method: "POST", headers, body: init });
if (after.status !== 200) {
  console.log(`FAIL: initialize after the nested body answered ${after.status}`);
  process.exit(1);
}
JS
kill -0 "$KOPT_PID" || { echo "FAIL: the HTTP server died"; exit 1; }
echo "PASS: nested JSON is refused with -32700 on stdio and HTTP; the server keeps serving"
