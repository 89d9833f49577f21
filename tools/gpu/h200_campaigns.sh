#!/usr/bin/env bash
# Scripted kopt campaigns on the H200, through `kopt serve` over MCP stdio (kopt demo --script), in
# one device call. Usage, from the repository root on the GPU machine with build-gpu-bundle carried:
#   bash tools/gpu/h200_campaigns.sh SCRIPT:SECONDS [SCRIPT:SECONDS ...]
# Writes under $OUT: campaigns.log (every transcript), records.tar.gz (each campaign's .kopt
# records: ledger, summaries, trend, report).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
B=$ROOT/build-gpu-bundle
OUT=${OUT:-$ROOT/out-campaigns}
mkdir -p "$OUT" /tmp/kopt-campaigns
export LD_LIBRARY_PATH=$B/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/kopt-campaigns/triton-cache
command -v git >/dev/null || export PATH=$PATH:$B/gitbin
for spec in "$@"; do
  script=${spec%%:*}; budget=${spec##*:}; name=$(basename "$script" .json)
  echo "=== $name (budget ${budget}s) ===" | tee -a "$OUT/campaigns.log"
  start=$(date +%s)
  timeout "$budget" "$B/bin/kopt" demo --source "$ROOT" --script "$script" --dir "/tmp/kopt-campaigns/$name" \
    >>"$OUT/campaigns.log" 2>&1
  echo "=== $name: exit $? after $(( $(date +%s) - start ))s ===" | tee -a "$OUT/campaigns.log"
done
tar czf "$OUT/records.tar.gz" -C /tmp/kopt-campaigns --exclude='worktrees' --exclude='triton-cache' \
  $(cd /tmp/kopt-campaigns && ls -d */repo/.kopt 2>/dev/null) 2>/dev/null
grep -E '^===|verdict:|!!' "$OUT/campaigns.log"
