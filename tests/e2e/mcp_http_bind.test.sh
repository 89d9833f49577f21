#!/usr/bin/env bash
# A non-loopback bind needs a token (docs/robustness.md, item 2): `--http 0.0.0.0` started without one and
# without a warning, and the Origin check cannot protect it (the caller sets Origin and Host).
source "$(dirname "$0")/lib/common.sh"

rc=0
# (bounded: a server that accepts the bind would serve forever)
timeout 20 "$KOPT_BIN" serve --http 0.0.0.0:0 2> "$E2E_TMP/refused.err" || rc=$?
[[ $rc -eq 2 ]] || { echo "FAIL: --http 0.0.0.0 without a token exited $rc, not 2"; exit 1; }
grep -q -- "listens beyond this machine" "$E2E_TMP/refused.err" &&
  grep -q -- "--token-file FILE" "$E2E_TMP/refused.err" ||
  { echo "FAIL: the refusal does not name the fix:"; cat "$E2E_TMP/refused.err"; exit 1; }

# With a token: serves, no warning.
echo "s3cret-token" > "$E2E_TMP/token"
KOPT_HTTP_HOST=0.0.0.0 start_kopt_http --token-file "$E2E_TMP/token"
if grep -q WARNING "$KOPT_LOG"; then echo "FAIL: a warning although a token is set"; exit 1; fi

# Knowingly without one: serves, and says what that means.
KOPT_HTTP_HOST=0.0.0.0 start_kopt_http --insecure-no-auth
grep -q "WARNING: serving 0.0.0.0 without a token" "$KOPT_LOG" ||
  { echo "FAIL: --insecure-no-auth printed no warning:"; cat "$KOPT_LOG"; exit 1; }

# Loopback needs nothing (the default, unchanged).
start_kopt_http
echo "PASS: a non-loopback bind needs --token-file or --insecure-no-auth (with a warning)"
