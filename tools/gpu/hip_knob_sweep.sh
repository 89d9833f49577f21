#!/usr/bin/env bash
# A quick look at one-knob variants of the sample HIP kernels before a scripted campaign spends its
# rounds on them: which knob is worth a round (a campaign round costs about a minute of device
# time, a look here a few seconds). The campaign's verdict is still kopt's; this only picks the
# hypotheses, the way an engineer's quick sweep would.
#   build (here, with nvcc):   bash tools/gpu/hip_knob_sweep.sh build   -> build-hip-sweep/<variant>/
#   run (GPU machine, build-hip-sweep carried):
#                              bash tools/gpu/hip_knob_sweep.sh run OUTDIR
#   summary (anywhere):        bash tools/gpu/hip_knob_sweep.sh summary OUTDIR
#                              each variant's forward and backward metric per shape against its
#                              kernel's baseline, mean over passes, and the geometric mean
# `run` measures every variant SWEEP_PASSES times (default 2; odd passes in the listed order, even
# passes reversed, so a drift over a pass does not favour one variant), with the bench's own
# summary CSV (--time-cap-s 0.2 --max-samples 60: the knobs worth a round move a kernel by percents,
# the benches' run-to-run sd is 0.1-1 %).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
SWEEP=build-hip-sweep
# variant name = kernel:flag[,flag...] (empty flags: the checked-in config)
VARIANTS=(
  gemm-baseline:
  gemm-bk32:-DKOPT_GEMM_BLOCK_K=32
  gemm-bm64:-DKOPT_GEMM_BLOCK_M=64
  gemm-vec4:-DKOPT_GEMM_VEC=4
  gemm-pad1:-DKOPT_GEMM_SMEM_PAD=1
  gemm-tn4:-DKOPT_GEMM_THREAD_N=4
  rmsnorm-baseline:
  rmsnorm-bpc8:-DKOPT_RMS_BWD_BLOCKS_PER_CU=8
  rmsnorm-bpc2:-DKOPT_RMS_BWD_BLOCKS_PER_CU=2
  rmsnorm-t512:-DKOPT_RMS_THREADS=512
  rmsnorm-t128:-DKOPT_RMS_THREADS=128
  rmsnorm-cols32:-DKOPT_RMS_MAX_COLS_PER_THREAD=32
  rmsnorm-cols128:-DKOPT_RMS_MAX_COLS_PER_THREAD=128
)

build() {
  mkdir -p "$SWEEP"
  for v in "${VARIANTS[@]}"; do
    name=${v%%:*} flags=${v#*:} kernel=${name%%-*}
    dir=/tmp/kopt-hip-sweep/$name
    defs=${flags//,/ }
    if ! cmake -S kernels/hip -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      "-DCMAKE_CUDA_FLAGS=$defs" "-DCMAKE_CXX_FLAGS=$defs" >/dev/null ||
      ! cmake --build "$dir" -j"${JOBS:-2}" --target "kopt_hip_${kernel}_bench" >/dev/null; then
      echo "hip_knob_sweep: $name did not build" >&2
      continue
    fi
    mkdir -p "$SWEEP/$name"
    cp "$dir/kopt_hip_${kernel}_bench" "$SWEEP/$name/"
    strip "$SWEEP/$name/kopt_hip_${kernel}_bench"  # 13 variants + the bundle must fit a 64 MiB carry
    echo "built $name ($flags)"
  done
}

run() {
  local out=$1
  mkdir -p "$out"
  for ((pass = 1; pass <= ${SWEEP_PASSES:-2}; pass++)); do
    local order=("${VARIANTS[@]}")
    if [ $((pass % 2)) = 0 ]; then
      order=(); for ((i = ${#VARIANTS[@]} - 1; i >= 0; i--)); do order+=("${VARIANTS[$i]}"); done
    fi
    for v in "${order[@]}"; do
      name=${v%%:*} kernel=${name%%-*}
      bin=$SWEEP/$name/kopt_hip_${kernel}_bench
      [ -x "$bin" ] || continue
      start=$(date +%s)
      timeout 60 "$bin" --time-cap-s 0.2 --max-samples 60 --summary-csv "$out/$name-$pass.csv" \
        --samples "$out/$name-$pass.jsonl" >"$out/$name-$pass.log" 2>&1
      echo "$name pass $pass: exit $? after $(( $(date +%s) - start ))s" >>"$out/sweep.txt"
    done
  done
}

summary() {
  python3 - "$1" <<'PY'
import csv, glob, math, os, re, sys
from collections import defaultdict
runs = defaultdict(list)  # variant -> [{(shape, direction): value}]
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-[0-9]*.csv"))):
    name = re.sub(r"-\d+\.csv$", "", os.path.basename(path))
    rows = list(csv.DictReader(open(path)))
    if not rows:
        continue
    fwd = next(k for k in rows[0] if k.startswith("Forward") and not k.endswith("_stddev") and "Time" not in k)
    bwd = next(k for k in rows[0] if k.startswith("Backward") and not k.endswith("_stddev") and "Time" not in k)
    runs[name].append({(r["label"], d): float(r[col]) for r in rows if r["Check"] == "PASS"
                       for d, col in (("fwd", fwd), ("bwd", bwd))})
def mean(name):
    keys = set.intersection(*(set(r) for r in runs[name]))
    return {k: sum(r[k] for r in runs[name]) / len(runs[name]) for k in keys}
for name in sorted(runs):
    kernel = name.split("-")[0]
    if name.endswith("-baseline") or kernel + "-baseline" not in runs:
        continue
    base, var = mean(kernel + "-baseline"), mean(name)
    for d in ("fwd", "bwd"):
        ratios = [var[k] / base[k] for k in sorted(base) if k[1] == d and k in var]
        if ratios:
            g = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print("%-18s %s geomean %+6.1f%%  per shape %s" % (name, d, (g - 1) * 100,
                  " ".join("%+.1f" % ((x - 1) * 100) for x in ratios)))
PY
}

case "${1:-}" in
  build) build ;;
  summary) summary "${2:?usage: hip_knob_sweep.sh summary OUTDIR}" ;;
  run) run "${2:?usage: hip_knob_sweep.sh run OUTDIR}" ;;
  *) echo "usage: $0 build | run OUTDIR | summary OUTDIR" >&2; exit 2 ;;
esac
