#!/bin/sh
# Claude Code: register kopt under the name "turbo", so its tools read mcp__turbo__<tool> and
# skills written for Primus-Turbo's `turbo` helper (mcp__turbo__parse_bench_csv, ...) work as is.
# Run from the repository (or folder of repositories) that holds the kernels: that is the
# server's workspace.
claude mcp add turbo -- kopt serve
# Over HTTP instead (start `kopt serve --http 127.0.0.1:8765` first):
#   claude mcp add --transport http turbo http://127.0.0.1:8765/mcp
