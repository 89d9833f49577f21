#!/usr/bin/env bash
# Runs the pinned MCP Inspector v2 CLI (@modelcontextprotocol/inspector) with Node 22 and an
# isolated state directory, so tests never touch the user's Inspector config or wait on OAuth.
#   bash "$KOPT_SOURCE_DIR/tests/e2e/lib/inspector.sh" --cli --format json -q --method tools/call \
#        --tool-name NAME --tool-args-json '{...}' -- "$KOPT_BIN" serve --conformance-fixtures
#   (Inspector options first, then `--`, then the server command with its own flags)
#   bash .../inspector.sh --cli --format json -q --transport http --server-url "$KOPT_URL" --method tools/list
# Exit codes are the Inspector's: 0 ok, 5 tool error (isError or unknown tool), 6 --strict findings.
set -euo pipefail
e2e_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
node=$(bash "$e2e_dir/lib/node22.sh")
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export MCP_STORAGE_DIR="$state" MCP_INSPECTOR_OAUTH_STATE_PATH="$state/oauth.json"
"$node" "$e2e_dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" "$@"
