#!/usr/bin/env bash
# Raw newline-delimited JSON over stdio with stdin held open (see
# mcp_stdio_raw.mjs for the list of checks).
source "$(dirname "$0")/lib/common.sh"
"$NODE22" "$E2E_DIR/mcp_stdio_raw.mjs"
