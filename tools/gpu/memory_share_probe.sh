#!/usr/bin/env bash
# On a GPU machine (a device call): the A/A's memory load played with the quick harness's own
# classes (tools/gpu/memory_share_probe.py), once sized as before (KOPT_WORKERS_ON_DEVICE unset: a
# share for two workers) and once with kopt's count at BASELINE (6): four spares that warmed every
# shape, the running session's idle arm, and the measured worker. Per setting, under $OUT (or
# ./memory_share_probe.out): measure-<w>.jsonl (per shape: batches, re-runs and their causes,
# errors, the allocator's counts over the kept batches, the ring's sets, the timing streams, the
# row's Check), the six logs, and memory-<w>.txt (nvidia-smi's used MiB every 0.5 s; the first
# line is the total).
#   bash tools/gpu/memory_share_probe.sh [BATCHES]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/memory_share_probe.out}
batches=${1:-16}
mkdir -p "$out"
probe="$root/tools/gpu/memory_share_probe.py"

one_setting() {  # $1: the KOPT_WORKERS_ON_DEVICE value, or "unset"
  local w=$1 dir pids=() fifos=() i
  dir=$(mktemp -d)
  if [ "$w" = unset ]; then unset KOPT_WORKERS_ON_DEVICE; else export KOPT_WORKERS_ON_DEVICE=$w; fi
  nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits >"$out/memory-$w.txt"
  (while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.5; done) >>"$out/memory-$w.txt" &
  local sampler=$!
  # the holders: four spares and the idle arm, each holding its memory while its stdin stays open
  for i in 1 2 3 4 5; do
    local role=spare
    [ "$i" -eq 5 ] && role=arm
    mkfifo "$dir/in$i"
    python3 "$probe" --role "$role" --ready "$dir/ready$i" <"$dir/in$i" 2>"$out/$role$i-$w.log" &
    pids+=($!)
    exec {fd}>"$dir/in$i"
    fifos+=("$fd")
  done
  for i in $(seq 1 600); do
    [ "$(ls "$dir"/ready* 2>/dev/null | wc -l)" -ge 5 ] && break
    sleep 0.5
  done
  echo "holders ready: $(ls "$dir"/ready* 2>/dev/null | wc -l) of 5" >"$out/measure-$w.log"
  python3 "$probe" --role measure --batches "$batches" </dev/null >"$out/measure-$w.jsonl" 2>>"$out/measure-$w.log"
  for fd in "${fifos[@]}"; do exec {fd}>&-; done
  wait "${pids[@]}" 2>/dev/null
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  rm -rf "$dir"
}

# On a card larger than an H100 (81,559 MiB), a ballast process holds the difference, so the six
# workers meet an H100's capacity.
ballast_mib=$(( $(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1) - 81559 ))
if [ "$ballast_mib" -gt 0 ]; then
  mkfifo "$out/.ballast_in"
  python3 -c "import sys, torch; b = torch.empty($ballast_mib << 20, dtype=torch.uint8, device='cuda'); open('$out/.ballast_ready', 'w').close(); sys.stdin.read()" <"$out/.ballast_in" 2>"$out/ballast.log" &
  ballast_pid=$!
  exec {ballast_fd}>"$out/.ballast_in"
  for i in $(seq 1 120); do [ -e "$out/.ballast_ready" ] && break; sleep 0.5; done
  echo "ballast: $ballast_mib MiB held" >>"$out/ballast.log"
fi
one_setting unset
one_setting 6
if [ "$ballast_mib" -gt 0 ]; then exec {ballast_fd}>&-; wait "$ballast_pid"; rm -f "$out/.ballast_in" "$out/.ballast_ready"; fi
{ [ "$ballast_mib" -gt 0 ] && echo "ballast: $ballast_mib MiB held by another process, counted in the peaks below"
for w in unset 6; do
  echo "== KOPT_WORKERS_ON_DEVICE=$w: peak used $(tail -n +2 "$out/memory-$w.txt" | sort -n | tail -1) of $(head -1 "$out/memory-$w.txt") MiB"
  cat "$out/measure-$w.jsonl"
  grep -h -E "run again|escaped|disturbed|a batch failed" "$out/measure-$w.log" | head -20
done; } | tee "$out/summary.txt"
