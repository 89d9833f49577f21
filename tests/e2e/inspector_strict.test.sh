#!/usr/bin/env bash
# Issue 6, acceptance 2: the Inspector CLI's schema portability lint (`tools/list --strict`)
# finds no error-severity problem in kopt's tool schemas, over stdio and over HTTP (exit 6 would
# mean a schema some LLM provider rejects). Warnings are printed, not failed.
source "$(dirname "$0")/lib/common.sh"
inspect() { bash "$E2E_DIR/lib/inspector.sh" --cli "$@"; }

start_kopt_http --workspace "$E2E_TMP"
failed=0
inspect --method tools/list --strict "$KOPT_BIN" serve --workspace "$E2E_TMP" >"$E2E_TMP/stdio.out" 2>"$E2E_TMP/stdio.err" ||
  { echo "FAIL: tools/list --strict over stdio exited $?" >&2; cat "$E2E_TMP/stdio.err" >&2; failed=1; }
inspect --method tools/list --strict --transport http --server-url "$KOPT_URL" >"$E2E_TMP/http.out" 2>"$E2E_TMP/http.err" ||
  { echo "FAIL: tools/list --strict over HTTP exited $?" >&2; cat "$E2E_TMP/http.err" >&2; failed=1; }
# The lint must have looked at kopt's real catalogue, not an empty list.
grep -q '"define_target"\|define_target' "$E2E_TMP/stdio.out" || { echo "FAIL: stdio tools/list shows no define_target" >&2; failed=1; }
tail -n 1 "$E2E_TMP/stdio.err" >&2 || true
exit $failed
