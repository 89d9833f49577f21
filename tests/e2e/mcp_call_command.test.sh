#!/usr/bin/env bash
# `kopt call <tool> '<json>'`: one tool in-process, same validation as the server; result JSON on
# stdout; exit 0 ok, 1 isError, 2 usage error or unknown tool. (Needs no npm packages.)
set -euo pipefail
if [[ -z "${KOPT_BIN:-}" || ! -x "${KOPT_BIN}" ]]; then
  echo "set KOPT_BIN to the built kopt binary" >&2
  exit 1
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
run() {  # run ARGS...: sets out, rc
  set +e
  out=$("$KOPT_BIN" call "$@" 2>/dev/null)
  rc=$?
  set -e
}

run test_structured_content '{"a":2,"b":3}' --conformance-fixtures
[[ $rc -eq 0 ]] || fail "ok call exit $rc"
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["structuredContent"]=={"sum":5,"product":6}, r' "$out" \
  || fail "ok call output: $out"

run test_structured_content '{"a":2,"b":"x"}' --conformance-fixtures
[[ $rc -eq 1 ]] || fail "bad argument should exit 1, got $rc"
python3 -c 'import json,sys; r=json.loads(sys.argv[1]); assert r["isError"] and "'"'"'b'"'"'" in r["content"][0]["text"], r' "$out" \
  || fail "bad argument output should name the field: $out"

run test_error_handling --conformance-fixtures
[[ $rc -eq 1 ]] || fail "isError tool should exit 1, got $rc"
run no_such_tool '{}' --conformance-fixtures
[[ $rc -eq 2 ]] || fail "unknown tool should exit 2, got $rc"
run test_echo '{"message":' --conformance-fixtures
[[ $rc -eq 2 ]] || fail "invalid JSON should exit 2, got $rc"
run test_echo '[1]' --conformance-fixtures
[[ $rc -eq 2 ]] || fail "non-object arguments should exit 2, got $rc"
run
[[ $rc -eq 2 ]] || fail "no tool name should exit 2, got $rc"
echo "PASS: kopt call exit codes 0/1/2 and output"
