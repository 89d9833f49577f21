# Shared setup for tests/e2e/*.test.sh: source it first.
#   source "$(dirname "$0")/lib/common.sh"
# Gives: E2E_DIR, NODE22 (pinned Node 22), KOPT_BIN (checked), E2E_TMP (removed on exit), and
# start_kopt_http ARGS... which starts `kopt serve --http 127.0.0.1:0 ARGS...` in the background
# (host: $KOPT_HTTP_HOST when set)
# and sets KOPT_PID, KOPT_PORT, KOPT_URL (stopped on exit; stderr in $E2E_TMP/kopt-http-N.log).
set -euo pipefail
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NODE22=$(bash "$E2E_DIR/lib/node22.sh")
if [[ -z "${KOPT_BIN:-}" || ! -x "${KOPT_BIN}" ]]; then
  echo "e2e: set KOPT_BIN to the built kopt binary (ctest does this)" >&2
  exit 1
fi
E2E_TMP=$(mktemp -d)
_e2e_pids=()
_e2e_cleanup() {
  local pid
  for pid in "${_e2e_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${_e2e_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$E2E_TMP"
}
trap _e2e_cleanup EXIT

_e2e_servers=0
start_kopt_http() {
  _e2e_servers=$((_e2e_servers + 1))
  local portfile="$E2E_TMP/port-$_e2e_servers"
  KOPT_LOG="$E2E_TMP/kopt-http-$_e2e_servers.log"
  "$KOPT_BIN" serve --http "${KOPT_HTTP_HOST:-127.0.0.1}:0" --port-file "$portfile" "$@" 2>"$KOPT_LOG" &
  KOPT_PID=$!
  _e2e_pids+=("$KOPT_PID")
  # The port file appears (atomically) once the socket is bound; poll for it, bounded.
  local i
  for i in $(seq 1 200); do
    [[ -s "$portfile" ]] && break
    if ! kill -0 "$KOPT_PID" 2>/dev/null; then
      echo "e2e: kopt serve --http exited early:" >&2
      cat "$KOPT_LOG" >&2
      return 1
    fi
    sleep 0.05
  done
  if [[ ! -s "$portfile" ]]; then
    echo "e2e: kopt serve --http did not report its port within 10 s" >&2
    cat "$KOPT_LOG" >&2
    return 1
  fi
  KOPT_PORT=$(cat "$portfile")
  KOPT_URL="http://127.0.0.1:$KOPT_PORT/mcp"
}

# fake_kernel_repo DIR [MESSAGE]: a git repository at DIR holding tests/e2e/fake_kernel (kernel/,
# build.py, test.py, bench.py, manifest.yaml), committed on main. Needs KOPT_SOURCE_DIR and git.
fake_kernel_repo() {
  local repo=$1 message=${2:-fake kernel} src="$KOPT_SOURCE_DIR/tests/e2e/fake_kernel"
  mkdir -p "$repo/kernel"
  cp "$src/bench.py" "$src/build.py" "$src/test.py" "$src/manifest.yaml" "$repo/"
  cp "$src/kernel/config.ini" "$src/kernel/impl.txt" "$repo/kernel/"
  cp "$src/gitignore" "$repo/.gitignore"
  git -C "$repo" init -q -b main
  git -C "$repo" add -A
  git -C "$repo" -c user.name=kopt-e2e -c user.email=e2e@example.com commit -q -m "$message"
}

# require_commands CMD...: skip the test (77) when one is missing, naming it.
require_commands() {
  local c
  for c in "$@"; do command -v "$c" >/dev/null || { echo "$c is required" >&2; exit 77; }; done
}

# The identity of every commit a test's campaign makes (kopt commits accepted rounds).
export_git_identity() {
  export GIT_AUTHOR_NAME=kopt-e2e GIT_AUTHOR_EMAIL=e2e@example.com GIT_COMMITTER_NAME=kopt-e2e GIT_COMMITTER_EMAIL=e2e@example.com
}
