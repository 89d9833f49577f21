#!/usr/bin/env bash
# Issue 11 and 15 in one device call:
#  1. the launch-free reference of both Triton kernels with the harness's L2 flush reading the
#     flush buffer (clean lines, as shipped since the ninth session) and zeroing it (--write-flush:
#     the whole L2 left dirty): does the flush's write-back land in the next call's time once
#     nothing on the host separates them? (The ninth session's call 3 ran this at 08b628e (+ 4dc3cb0), when the
#     harnesses still zeroed by default and the options were --read-flush; same comparison.)
#  2. the same question on the native HIP RMSNorm (--write-flush), when build-hip-cover/ is carried;
#  3. scripted campaigns (SCRIPT:SECONDS ...) through kopt's MCP tools, via h200_campaigns.sh.
# From the repository root on the GPU machine with build-gpu-bundle carried; everything lands in
# $OUT/all.tgz (the device tool returns only a handful of files per call).
#   bash tools/gpu/flush_reference_and_campaigns.sh SCRIPT:SECONDS [SCRIPT:SECONDS ...]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
FINAL=${OUT:-$ROOT/out-flush-campaigns}
work=$(mktemp -d)
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/kopt-campaigns/triton-cache
mkdir -p /tmp/kopt-campaigns
{ date -u; git log -1 --format=%H 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$work/env.txt" 2>&1
for k in matmul rmsnorm; do
  for mode in zero read; do
    flag=(); [ "$mode" = zero ] && flag=(--write-flush)
    start=$(date +%s)
    timeout 80 python3 tools/gpu/launch_free_reference.py "kernels/triton/${k}_bench.py" "${flag[@]}" \
      --out "$work/reference-$k-$mode.jsonl" >"$work/reference-$k-$mode.log" 2>&1
    echo "reference $k $mode flush: exit $? after $(( $(date +%s) - start ))s" >>"$work/env.txt"
  done
done
# The native HIP RMSNorm (build-hip-cover carried, built with harness/hip/build_kernels.sh): the
# cover with the overwriting flush, the cover with the reading flush, no cover; twice, alternated.
if [ -x build-hip-cover/kopt_hip_rmsnorm_bench ]; then
  for rep in 1 2; do
    for mode in cover-write cover-read none-write; do
      flags=(); case $mode in cover-write) flags=(--write-flush) ;; none-write) flags=(--no-launch-cover --write-flush) ;; esac
      timeout 60 build-hip-cover/kopt_hip_rmsnorm_bench "${flags[@]}" --time-cap-s 0.3 --max-samples 100 \
        --summary-csv "$work/hip-rmsnorm-$mode-$rep.csv" --samples "$work/hip-rmsnorm-$mode-$rep.jsonl" \
        >"$work/hip-rmsnorm-$mode-$rep.log" 2>&1
      echo "hip rmsnorm $mode $rep: exit $?" >>"$work/env.txt"
    done
  done
fi
[ $# -gt 0 ] && OUT=$work bash tools/gpu/h200_campaigns.sh "$@"
mkdir -p "$FINAL"
tar czf "$FINAL/all.tgz" -C "$work" .
cat "$work/env.txt"
