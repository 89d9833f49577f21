#!/bin/sh
# The grouped GEMM's test command: every shape through the harness's checks (fp64 reference on
# each group-size distribution, every timed call re-verified) with few samples, under a fresh
# random seed, so the distributions checked are ones no candidate could have tuned for. Exits 1 on
# any FAIL row, naming what failed (the harness's stderr).
# Usage: sh check.sh   (from any directory, after build.sh)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
echo "check.sh: seed $seed"
out=$("$here/build/cpu_grouped_gemm_bench" --min-samples 3 --max-samples 6 --time-cap-ms 10 --seed "$seed")
echo "$out"
if echo "$out" | grep -q ',FAIL,'; then
  echo "check.sh: a shape FAILs its correctness check (see the harness's lines above)" >&2
  exit 1
fi
echo "check.sh: every shape PASSes"
