#!/usr/bin/env bash
# The official TypeScript SDK client (pinned) against kopt over stdio and
# over Streamable HTTP: tools/list, a call with progress, a cancelled long call, structuredContent
# checked against the declared outputSchema.
source "$(dirname "$0")/lib/common.sh"
cd "$E2E_DIR"
"$NODE22" mcp_sdk_client.mjs stdio
"$NODE22" mcp_sdk_client.mjs http
