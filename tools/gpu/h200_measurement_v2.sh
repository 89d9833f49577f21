#!/usr/bin/env bash
# Issue 11's H200 figures in one device call: the launch-free reference comparison of both Triton
# kernels, then scripted worker-protocol campaigns until their budgets end. From the repository
# root on the GPU machine, with build-gpu-bundle carried:
#   bash tools/gpu/h200_measurement_v2.sh SECONDS [--no-reference] [SCRIPT:SECONDS ...] SCRIPT
# SECONDS is the whole call's time: campaign scripts with their own budget run first, and the last
# SCRIPT gets what is left, less 30 s to archive the records. Writes under $OUT: env.txt, reference-{matmul,rmsnorm}.jsonl and
# .log, campaigns.log, records.tar.gz.
set -u
deadline=$(( $(date +%s) + ${1:?usage: h200_measurement_v2.sh SECONDS [--no-reference] SCRIPT} ))
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/out-measurement-v2}
mkdir -p "$OUT" /tmp/kopt-campaigns
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/kopt-campaigns/triton-cache
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  nproc
} >"$OUT/env.txt" 2>&1
if [ "${1:-}" = "--no-reference" ]; then
  shift
else
  for k in matmul rmsnorm; do
    start=$(date +%s)
    timeout 100 python3 tools/gpu/launch_free_reference.py "kernels/triton/${k}_bench.py" \
      --out "$OUT/reference-$k.jsonl" >"$OUT/reference-$k.log" 2>&1
    echo "reference $k: exit $? after $(( $(date +%s) - start ))s" | tee -a "$OUT/env.txt"
  done
fi
while [ $# -gt 1 ]; do
  bash tools/gpu/h200_campaigns.sh "$1"
  shift
done
bash tools/gpu/h200_campaigns.sh "$1:$(( deadline - $(date +%s) - 30 ))"
