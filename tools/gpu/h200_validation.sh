#!/usr/bin/env bash
# One call on the H200 machine (issue 5, docs/gpu-validation.md): build the HIP sample kernels for
# sm_90 there, ask kopt's device layer what the GPU is and measure its ceilings, check the HIP GEMM
# and RMSNorm against torch, run their native benches, and write everything under $OUT.
#
# Run from the repository root on the GPU machine:
#   bash tools/gpu/h200_validation.sh
# with build-gpu-bundle/ carried (tools/gpu/make_bundle.sh builds it here): it holds the kopt binary
# and its libraries, and prebuilt benches used when the build on the GPU machine fails.
#
# Every step logs to $OUT/validation.log and the script carries on when a step fails; each step has
# its own time limit and the whole run stays inside KOPT_VALIDATION_BUDGET_S (default 540 s, for a
# 600 s call). Files returned (at most 8 come back): validation.log, summary.md, device_info.txt,
# torch_check.json, hip_gemm.csv, hip_rmsnorm.csv, extras.tar.gz (samples files, the device probe's
# JSON, the ceilings cache, the compiler's resource report and SASS instruction counts).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/out-validation}
mkdir -p "$OUT"
WORK=${KOPT_VALIDATION_WORK:-/tmp/kopt-validation}
rm -rf "$WORK"
mkdir -p "$WORK/cache"
LOG=$OUT/validation.log
: > "$LOG"
STEPS=$WORK/steps.tsv
: > "$STEPS"
BUDGET=${KOPT_VALIDATION_BUDGET_S:-540}
JOBS=$(nproc 2>/dev/null || echo 4)
BUNDLE=$ROOT/build-gpu-bundle
SEED=${KOPT_VALIDATION_SEED:-$(( (RANDOM << 15) | RANDOM ))}
export KOPT_CACHE_DIR=$WORK/cache   # the per-machine ceilings cache, returned in extras
export PYTHONUNBUFFERED=1
# Leave NVLink multicast off whatever runs here (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
T0=$(date +%s)

elapsed() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(date -u +%H:%M:%S) +$(elapsed)s] $*" | tee -a "$LOG"; }

# step NAME LIMIT_S COMMAND...: runs COMMAND under a time limit (trimmed to the budget left), output
# into the log, and records NAME, exit code and seconds. Never stops the script.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$(( BUDGET - $(elapsed) ))
  if [ "$left" -lt 15 ]; then
    log "SKIP $name: only ${left}s of the budget left"
    printf '%s\tskipped\t0\n' "$name" >> "$STEPS"
    return 99
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  log "BEGIN $name (limit ${limit}s): $*"
  local t=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" >> "$LOG" 2>&1
  local rc=$?
  [ "$rc" -eq 124 ] && log "TIMEOUT $name after ${limit}s"
  log "END $name rc=$rc ($(( $(date +%s) - t ))s)"
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(( $(date +%s) - t ))" >> "$STEPS"
  return "$rc"
}

log "kopt GPU validation: root=$ROOT out=$OUT work=$WORK budget=${BUDGET}s seed=$SEED"

# 1. The machine as found (clocks are read, never set).
step env 30 bash -c '
  uname -a; nproc; free -g; df -h /tmp | tail -1
  nvidia-smi || true
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv || true
  command -v nvcc && nvcc --version | tail -2
  cmake --version | head -1; ninja --version 2>/dev/null || echo "no ninja"
  command -v compute-sanitizer cuobjdump ncu || true
  python3 -c "import torch, triton; print(\"torch\", torch.__version__, \"triton\", triton.__version__, torch.cuda.get_device_name())"
  ldconfig -p | grep -E "libcuda\.so|libcublas\.so" || true
  git -C "'"$ROOT"'" log --oneline -1 2>/dev/null || true'

# 2. Build the kernels and benches here (sm_90 machine code, resource report on).
HIP_BUILD=$WORK/build-hip
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
step build 300 bash -c "cmake -S kernels/hip -B '$HIP_BUILD' ${GEN[*]} -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DKOPT_HIP_RESOURCE_REPORT=ON && cmake --build '$HIP_BUILD' -j$JOBS"
GEMM_BENCH=$HIP_BUILD/kopt_hip_gemm_bench
RMS_BENCH=$HIP_BUILD/kopt_hip_rmsnorm_bench
KLIB=$HIP_BUILD/libkopt_hip_kernels.so
if [ ! -x "$GEMM_BENCH" ] || [ ! -x "$RMS_BENCH" ] || [ ! -f "$KLIB" ]; then
  log "build on this machine incomplete: falling back to the carried bundle ($BUNDLE)"
  GEMM_BENCH=$BUNDLE/bin/kopt_hip_gemm_bench
  RMS_BENCH=$BUNDLE/bin/kopt_hip_rmsnorm_bench
  KLIB=$BUNDLE/lib/libkopt_hip_kernels.so
fi
log "benches: $GEMM_BENCH $RMS_BENCH; kernels library: $KLIB"

# 3. What the compiler made of the kernels: instruction mix per kernel (FFMA = plain fp32 FMA,
# HMMA/HGMMA = tensor cores, LDG.E.128 = 16-byte loads, LDL/STL = local-memory spills).
step sass 60 bash -c "
  command -v cuobjdump >/dev/null || { echo 'no cuobjdump'; exit 0; }
  cuobjdump --dump-sass '$KLIB' > '$WORK/kernels.sass' 2>&1
  awk '/Function :/ {fn=\$3} /FFMA/ {ffma[fn]++} /HMMA/ {hmma[fn]++} /HGMMA/ {hgmma[fn]++} /LDG.E.128/ {ldg[fn]++} /LDL|STL/ {spill[fn]++}
       END {for (f in ffma) printf \"%s FFMA=%d HMMA=%d HGMMA=%d LDG.E.128=%d LDL/STL=%d\n\", f, ffma[f], hmma[f], hgmma[f], ldg[f], spill[f]}' \
       '$WORK/kernels.sass' | tee '$WORK/sass_counts.txt'"
grep -E "ptxas info|Used [0-9]+ registers|spill" "$LOG" > "$WORK/resource_report.txt" 2>/dev/null || true

# 4. kopt's device layer: device_info through the real kopt binary (MCP tool call), then the probe.
KOPT=$BUNDLE/bin/kopt
PROBE=$BUNDLE/bin/kopt_device_probe
export LD_LIBRARY_PATH=$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! ldconfig -p 2>/dev/null | grep -q "libcublas.so.1[23]" && [ ! -e /usr/local/cuda/lib64/libcublas.so.13 ]; then
  SITE=$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
  CUBLAS=$(find "$SITE/nvidia" -name 'libcublas.so.1[23]' 2>/dev/null | head -1)
  [ -n "$CUBLAS" ] && export KOPT_CUBLAS_LIB=$CUBLAS && log "cuBLAS for the matmul ceiling: $CUBLAS"
fi
{
  echo "### kopt call device_info '{}'"
} > "$OUT/device_info.txt"
step device_info 60 bash -c "'$KOPT' call device_info '{}' >> '$OUT/device_info.txt' 2>&1"
echo "### kopt call device_info '{\"measure_ceilings\": true}'" >> "$OUT/device_info.txt"
step device_info_measure 120 bash -c "'$KOPT' call device_info '{\"measure_ceilings\": true}' >> '$OUT/device_info.txt' 2>&1"
echo "### kopt_device_probe --measure (cached when the call above measured)" >> "$OUT/device_info.txt"
step device_probe 120 bash -c "'$PROBE' --measure > '$WORK/device_probe.json' 2>> '$OUT/device_info.txt'; rc=\$?; cat '$WORK/device_probe.json' >> '$OUT/device_info.txt'; exit \$rc"
echo "### KOPT_DEVICE_BACKEND=none kopt_device_probe (the no-GPU path on a GPU machine)" >> "$OUT/device_info.txt"
step device_probe_none 20 bash -c "KOPT_DEVICE_BACKEND=none '$PROBE' >> '$OUT/device_info.txt' 2>&1; [ \$? -eq 3 ]"

# 5. The HIP kernels against torch (float64 references on the GPU), plus torch's view of the ceilings.
step torch_check 200 python3 tools/gpu/check_against_torch.py --lib "$KLIB" --json "$OUT/torch_check.json" --seed "$SEED"

# 6. The native benches: correctness on every shape and the edge shapes, then the timed run.
step gemm_check 150 "$GEMM_BENCH" --check-only --seed "$SEED"
step gemm_bench 200 "$GEMM_BENCH" --summary-csv "$OUT/hip_gemm.csv" --samples "$WORK/hip_gemm_samples.jsonl" --seed "$SEED"
step rmsnorm_check 120 "$RMS_BENCH" --check-only --seed "$SEED"
step rmsnorm_bench 150 "$RMS_BENCH" --summary-csv "$OUT/hip_rmsnorm.csv" --samples "$WORK/hip_rmsnorm_samples.jsonl" --seed "$SEED"
cp "$OUT/hip_gemm.csv" "$OUT/hip_rmsnorm.csv" "$WORK/" 2>/dev/null

# 7. Memory and race checks on small shapes, if time is left (compute-sanitizer works on Firecracker).
if [ $(( BUDGET - $(elapsed) )) -gt 90 ] && command -v compute-sanitizer >/dev/null 2>&1; then
  step memcheck_gemm 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$GEMM_BENCH" --check-only \
    --shapes edge_m129_n257_k65,edge_b3_m512_n384_k260
  step memcheck_rmsnorm 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$RMS_BENCH" --check-only \
    --shapes edge_m3_n5,edge_m1000_n1001
  step racecheck_rmsnorm 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$RMS_BENCH" --check-only \
    --shapes edge_m3_n5
else
  log "SKIP sanitizers: not enough budget left or compute-sanitizer missing"
fi

step env_after 15 nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv

# 8. Summary and the returned files.
step summary 30 python3 tools/gpu/summarize_validation.py --work "$WORK" --out "$OUT"
cp "$STEPS" "$WORK/steps.tsv.copy" 2>/dev/null
tar -czf "$OUT/extras.tar.gz" -C "$WORK" --exclude build-hip . 2>> "$LOG"
log "done in $(elapsed)s; files: $(ls "$OUT" | tr '\n' ' ')"
grep -E "^\| " "$OUT/summary.md" 2>/dev/null | head -60
exit 0
