#!/usr/bin/env bash
# Issue 11: is the per-process offset of small Triton kernels where the process loaded the kernel's
# code, and does loading it anew before every timed batch turn the offset into noise the blocks
# average? process_effect_probe.py in processes mode, PAIRS pairs of worker processes x 2 re-prepares,
# three variants (as-shipped, reload-code at every prepare, reload-every-batch) on rms_1k_1k and mm_1k.
# From the repository root on the GPU machine; everything lands in $OUT/all.tgz.
#   bash tools/gpu/code_placement_probe.sh [PAIRS]
set -u
PAIRS=${1:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/out-code-placement}
work=$(mktemp -d)
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$work/triton-cache
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$work/env.txt" 2>&1
for spec in rmsnorm:rms_1k_1k matmul:mm_1k; do
  bench=${spec%%:*} shape=${spec#*:}
  for variant in as-shipped reload-code reload-every-batch; do
    name=probe-$shape-$variant start=$(date +%s)
    timeout 100 python3 tools/gpu/process_effect_probe.py "kernels/triton/${bench}_bench.py" --mode processes \
      --shapes "$shape" --pairs "$PAIRS" --reps 2 --variant "$variant" --out "$work/$name.jsonl" >"$work/$name.log" 2>&1
    echo "$name: exit $? after $(( $(date +%s) - start ))s" >>"$work/env.txt"
  done
done
mkdir -p "$OUT"
tar czf "$OUT/all.tgz" -C "$work" --exclude triton-cache .
cat "$work/env.txt"
