#!/usr/bin/env bash
# Issue 14: `kopt demo --repo DIR --script FILE` runs a campaign script on the user's own git
# repository: no copy, its history kept, `@file:` read from the repository, `${repo}` = DIR.
# The script stops after the environment is prepared (no measurement: it only shows the wiring).
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
command -v git >/dev/null || { echo "git is required" >&2; exit 77; }
export GIT_AUTHOR_NAME=kopt-e2e GIT_AUTHOR_EMAIL=e2e@example.com GIT_COMMITTER_NAME=kopt-e2e GIT_COMMITTER_EMAIL=e2e@example.com

repo="$E2E_TMP/my-kernel"
fake_kernel_repo "$repo" "my own kernel, my own history"

cat >"$E2E_TMP/script.json" <<'JSON'
{"name": "my kernel", "kernel_dir": "unused-with-repo", "steps": [
  {"tool": "define_target", "args": {"repo_path": "${repo}", "manifest_yaml": "@file:manifest.yaml",
                                     "created": "2026-12-02 12:00"},
   "capture": {"campaign_dir": "/campaign_dir"}},
  {"tool": "confirm_target", "args": {"campaign_dir": "${campaign_dir}", "confirm": true, "confirmed_by": "e2e"}},
  {"tool": "prepare_environment", "args": {"campaign_dir": "${campaign_dir}"}}
]}
JSON

"$KOPT_BIN" demo --repo "$repo" --script "$E2E_TMP/script.json" >"$E2E_TMP/demo.out" 2>&1 ||
  { echo "FAIL: kopt demo --repo"; tail -30 "$E2E_TMP/demo.out"; exit 1; }
grep -q "on your repository $repo" "$E2E_TMP/demo.out" || { echo "FAIL: the demo did not run on the repository"; head "$E2E_TMP/demo.out"; exit 1; }
ls -d "$repo"/.kopt/campaigns/* >/dev/null 2>&1 || { echo "FAIL: no campaign in $repo/.kopt"; exit 1; }
[[ "$(git -C "$repo" log --format=%s main | tail -1)" == "my own kernel, my own history" ]] ||
  { echo "FAIL: the repository's history changed"; git -C "$repo" log --oneline; exit 1; }

# Not a repository: a clear refusal, nothing run.
mkdir -p "$E2E_TMP/plain"
if "$KOPT_BIN" demo --repo "$E2E_TMP/plain" --script "$E2E_TMP/script.json" >"$E2E_TMP/plain.out" 2>&1; then
  echo "FAIL: --repo accepted a folder that is no git repository"; exit 1
fi
grep -q "is not the root of a git repository" "$E2E_TMP/plain.out" || { echo "FAIL: unclear refusal:"; cat "$E2E_TMP/plain.out"; exit 1; }
echo "PASS: kopt demo --repo ran a script on the user's own repository (no copy, history kept)"
