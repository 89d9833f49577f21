#!/usr/bin/env bash
# Streamable HTTP status codes, DNS-rebinding protection, bearer token,
# and 50 clients with open SSE streams not starving a ping (see mcp_http_checks.mjs).
source "$(dirname "$0")/lib/common.sh"
"$NODE22" "$E2E_DIR/mcp_http_checks.mjs"
