#!/usr/bin/env bash
# One device call (issue 11, fifteenth session): does timing each batch on the next stream of a
# worker's pool (the harness's Device.next_timing_stream) bring the spread of worker means of one
# build down to their standard error? In the same 8 workers, `shipped` (the turn of streams) next
# to `one-stream` (every batch on the worker's one stream, as before), on both Triton benches;
# then the same with CUDA_DEVICE_MAX_CONNECTIONS=32 (one hardware connection per pooled stream),
# and the stream structure itself (16 streams of 4 workers: does stream j share j+8's level?).
# Everything under $OUT (probe.jsonl, probe.log, machine.txt).
#   bash tools/gpu/stream_turn_probe.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/stream-turn-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/stream-turn-triton
{ date -u; git log -1 --format=%H 2>/dev/null; nvidia-smi; } >"$out/machine.txt" 2>&1
P=tools/gpu/timing_method_probe.py
run() {
  echo "== $*" >>"$out/probe.log"
  timeout "$1" python3 "$P" "${@:2}" --out "$out/probe.jsonl" 2>>"$out/probe.log" | tee -a "$out/probe.log"
}
A=(--workers 8 --blocks 16 --methods shipped,one-stream)
run 170 kernels/triton/rmsnorm_bench.py --shapes rms_1k_1k,rms_4k_4k "${A[@]}"
run 130 kernels/triton/matmul_bench.py --shapes mm_1k,mm_4k "${A[@]}"
CUDA_DEVICE_MAX_CONNECTIONS=32 run 90 kernels/triton/rmsnorm_bench.py --shapes rms_1k_1k "${A[@]}"
run 80 kernels/triton/rmsnorm_bench.py --shapes rms_1k_1k --directions forward --workers 4 --blocks 6 \
  --streams 16 --methods bare
cp /tmp/timing-probe-*.log "$out/" 2>/dev/null
true
