#!/usr/bin/env bash
# Issue 11, two questions in one device call (the eighth session's attempt lost its files):
#  1. Does the native HIP bench's launch cover change what a memory-bound kernel reads? The RMSNorm
#     and GEMM benches with and without --no-launch-cover, alternated twice.
#  2. Is the per-process offset of small Triton kernels where the process loaded the kernel's code?
#     process_effect_probe.py's reload-code variant (Triton's kernels dropped at every prepare, so the
#     code lands elsewhere) against as-shipped, on rms_1k_1k and mm_1k.
# From the repository root on the GPU machine, with build-hip-cover/ carried (the benches built by
# `bash harness/hip/build_kernels.sh DIR sm_90 kopt_hip_gemm_bench kopt_hip_rmsnorm_bench`).
# Everything lands in $OUT/all.tgz: the device tool returns only a handful of files per call.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/out-cover-code-probe}
work=$(mktemp -d)
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$work/triton-cache
{
  date -u; git log -1 --format=%H 2>/dev/null
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
} >"$work/env.txt" 2>&1
for rep in 1 2; do
  for bench in rmsnorm gemm; do
    for mode in cover none; do
      flag=(); [ "$mode" = none ] && flag=(--no-launch-cover)
      name=$bench-$mode-$rep
      timeout 60 "build-hip-cover/kopt_hip_${bench}_bench" "${flag[@]}" --time-cap-s 0.3 --max-samples 100 \
        --summary-csv "$work/$name.csv" --samples "$work/$name.jsonl" >"$work/$name.log" 2>&1
      echo "$name: exit $?" >>"$work/env.txt"
    done
  done
done
probe() {  # probe BENCH SHAPE VARIANT SECONDS
  local name=probe-$2-$3 start=$(date +%s)
  timeout "$4" python3 tools/gpu/process_effect_probe.py "kernels/triton/$1_bench.py" --mode processes \
    --shapes "$2" --pairs 3 --reps 2 --variant "$3" --out "$work/$name.jsonl" >"$work/$name.log" 2>&1
  echo "$name: exit $? after $(( $(date +%s) - start ))s" >>"$work/env.txt"
}
probe rmsnorm rms_1k_1k reload-code 110
probe rmsnorm rms_1k_1k as-shipped 110
probe matmul mm_1k reload-code 90
probe matmul mm_1k as-shipped 90
mkdir -p "$OUT"
tar czf "$OUT/all.tgz" -C "$work" --exclude triton-cache .
cat "$work/env.txt"
