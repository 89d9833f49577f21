#!/usr/bin/env bash
# One device call: the machine's topology, then timing_method_probe.py on both Triton benches
# (unpinned, then each worker on a CPU of its own), everything under $OUT (probe.jsonl, logs).
#   bash tools/gpu/timing_method_probe.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/timing-probe-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/timing-probe-triton
{ date -u; git log -1 --format=%H 2>/dev/null; nvidia-smi; nvidia-smi topo -m; lscpu; numactl -H;
  cat /sys/bus/pci/devices/*/numa_node 2>/dev/null | sort | uniq -c; } >"$out/machine.txt" 2>&1
P=tools/gpu/timing_method_probe.py
run() { timeout "$1" python3 "$P" "${@:2}" --out "$out/probe.jsonl" 2>>"$out/probe.log" | tee -a "$out/probe.log"; }
run 150 kernels/triton/rmsnorm_bench.py --shapes rms_1k_1k,rms_4k_4k,rms_8k_8k --workers 8 --blocks 8
run 120 kernels/triton/matmul_bench.py --shapes mm_1k,mm_4k --workers 8 --blocks 8
run 100 kernels/triton/rmsnorm_bench.py --shapes rms_1k_1k,rms_4k_4k --workers 8 --blocks 8 --pin
cp /tmp/timing-probe-*.log "$out/" 2>/dev/null
tar czf "$out/worker-logs.tgz" -C /tmp $(cd /tmp && ls timing-probe-*.log 2>/dev/null) 2>/dev/null
