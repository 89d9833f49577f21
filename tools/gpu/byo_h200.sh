#!/usr/bin/env bash
# docs/byo-kernel.md on the H200: the two plain repositories of kernels/byo (a Triton softmax, and
# a HIP scale-and-shift called through ctypes) each made a fresh git repository, taken through
# `kopt init` and a scripted campaign over MCP (tools/gpu/campaigns/byo_*.json): baseline, a genuine
# change, a worse one, final_acceptance, report. Also `kopt doctor` and device_info.
# Usage, from the repository root on the GPU machine with build-gpu-bundle carried:
#   bash tools/gpu/byo_h200.sh SECONDS_PER_CAMPAIGN [triton-softmax] [hip-scale-shift]   (default: both)
# Writes under $OUT: doctor.txt, device_info.json, byo.log (init output and transcripts),
# byo-records.tar.gz (each campaign's .kopt records and kopt/ files).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
B=$ROOT/build-gpu-bundle
OUT=${OUT:-$ROOT/out-byo}
W=/tmp/kopt-byo
budget=${1:-240}
shift
only=" ${*:-triton-softmax hip-scale-shift} "
mkdir -p "$OUT" "$W"
export LD_LIBRARY_PATH=$B/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$W/triton-cache
export PATH=$B/bin:$PATH:/usr/local/cuda/bin KOPT_TOOLS_DIR=$ROOT/harness/python KOPT_HIP_SHIM=$ROOT/src/device/hip_shim
command -v git >/dev/null || export PATH=$PATH:$B/gitbin
export GIT_AUTHOR_NAME=byo-user GIT_AUTHOR_EMAIL=user@example.com GIT_COMMITTER_NAME=byo-user GIT_COMMITTER_EMAIL=user@example.com
log=$OUT/byo.log

kopt doctor >"$OUT/doctor.txt" 2>&1
kopt call device_info '{}' >"$OUT/device_info.json" 2>&1

# plain_repo DIR SOURCE: SOURCE's files as a fresh repository with one commit, as a user has it.
plain_repo() {
  rm -rf "$1" && mkdir -p "$1" && cp -r "$2"/. "$1"/
  [ -f "$1/gitignore" ] && mv "$1/gitignore" "$1/.gitignore"
  git -C "$1" init -q -b main && git -C "$1" add -A && git -C "$1" commit -qm "my kernel"
}

# campaign NAME SOURCE SCRIPT INIT-ARGS...
campaign() {
  local name=$1 repo=$W/$1 src=$ROOT/$2 script=$ROOT/$3 start
  shift 3
  [[ $only == *" $name "* ]] || return 0
  plain_repo "$repo" "$src"
  echo "=== $name: kopt init $* ===" | tee -a "$log"
  start=$(date +%s)
  (cd "$repo" && kopt init "$@") >>"$log" 2>&1
  echo "=== $name: kopt init exit $? after $(( $(date +%s) - start ))s ===" | tee -a "$log"
  start=$(date +%s)
  timeout "$budget" kopt demo --repo "$repo" --script "$script" >>"$log" 2>&1
  echo "=== $name: campaign exit $? after $(( $(date +%s) - start ))s ===" | tee -a "$log"
}

campaign triton-softmax kernels/byo/triton_softmax tools/gpu/campaigns/byo_triton_softmax.json \
  --kernel softmax.py --shape sm_4k_4k=1,4096,4096 --shape sm_16k_2k=1,16384,2048 --shape sm_2k_8k=1,2048,8192
campaign hip-scale-shift kernels/byo/hip_scale_shift tools/gpu/campaigns/byo_hip_scale_shift.json \
  --kernel scale_shift.py --backend HIP --kernel-source scale_shift.hip --build-command 'bash build.sh ${TARGET_GPU}' \
  --shape ss_8k_4k=1,8192,4096 --shape ss_32k_1k=1,32768,1024 --shape ss_4k_14k=1,4096,14336
tar czf "$OUT/byo-records.tar.gz" -C "$W" --exclude='worktrees' --exclude='triton-cache' \
  $(cd "$W" && find . -maxdepth 2 \( -name .kopt -o -name kopt \) -type d) 2>/dev/null
grep -E '^===|decision|Baseline recorded|!!' "$log"
