#!/usr/bin/env bash
# Issue 8, acceptance 3: a sharded full validation of the Triton kernels on a 2-GPU machine
# (device kind nvidia-h200-x2), next to an unsharded run of the same shapes on one GPU. Run from
# the repository root with build-gpu-bundle carried (it holds kopt_exec_probe, the exec layer's
# command-line driver: the same runSharded the campaign engine uses for executor.devices).
# Writes under $OUT: <kernel>_single.csv, <kernel>_sharded.csv, shard.log (both shard logs and the
# comparison), gpus.txt.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/out-shard}
mkdir -p "$OUT"
PROBE=$ROOT/build-gpu-bundle/bin/kopt_exec_probe
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/kopt-shard/triton-cache
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=index,name,uuid --format=csv >"$OUT/gpus.txt" 2>&1
CAP=${KOPT_SHARD_TIME_CAP_S:-0.3}
for kernel in matmul rmsnorm; do
  bench=(python3 "kernels/triton/${kernel}_bench.py" --time-cap-s "$CAP")
  shapes=$("${bench[@]}" --list-shapes | awk '{print $1}' | paste -sd, -)
  w=/tmp/kopt-shard/$kernel
  mkdir -p "$w"
  t0=$SECONDS
  CUDA_VISIBLE_DEVICES=0 "${bench[@]}" --shapes "$shapes" --seed 11 --summary-csv "$OUT/${kernel}_single.csv" \
    --samples "$w/single.jsonl" >"$w/single.log" 2>&1
  t1=$SECONDS
  "$PROBE" shard --executor local --devices 0,1 --shapes "$shapes" --seed 11 --workdir "$w/shards" \
    --summary "$OUT/${kernel}_sharded.csv" --samples "$w/sharded.jsonl" --stdout "$w/sharded.log" \
    --timeout-ms 240000 -- "${bench[@]}" >"$w/probe.out" 2>&1
  t2=$SECONDS
  {
    echo "=== $kernel: shapes $shapes"
    cat "$w/probe.out"
    echo "wall time: single GPU $((t1 - t0)) s; sharded over 2 GPUs $((t2 - t1)) s (each includes Python, torch and Triton start-up)"
    same() { cut -d, -f1-6 "$1"; }  # label,B,M,N,K,Check
    if [ "$(head -1 "$OUT/${kernel}_single.csv")" = "$(head -1 "$OUT/${kernel}_sharded.csv")" ] &&
       [ "$(same "$OUT/${kernel}_single.csv")" = "$(same "$OUT/${kernel}_sharded.csv")" ]; then
      echo "SAME header and rows (label, shape, Check) in the same order"
    else
      echo "DIFFERENT tables:"; diff <(same "$OUT/${kernel}_single.csv") <(same "$OUT/${kernel}_sharded.csv")
    fi
    echo "samples headers: single $(head -c 300 "$w/single.jsonl")"
    echo "                 sharded $(head -c 300 "$w/sharded.jsonl")"
    grep -h "shard .* on device" "$w/sharded.log" | head -4
    tail -n 3 "$w"/shards/shard-*.log
  } >>"$OUT/shard.log" 2>&1
done
cat "$OUT/shard.log"
