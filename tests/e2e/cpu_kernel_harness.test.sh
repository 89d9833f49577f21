#!/usr/bin/env bash
# The CPU GEMM bench harness keeps the kopt harness contract (docs: kernels/cpu/README.md):
# builds both ways (build.sh in a copied folder, as the demo does; cmake as a top-level project),
# writes the frozen 15-column CSV and the samples JSON Lines file, honours --shapes/--seed, exits 2
# on an unknown label, and a knob that skips the K remainder turns exactly the odd shape into FAIL.
# Also runs the pure-Python self-tests of the quick harnesses (no torch needed).
set -euo pipefail
src=${KOPT_SOURCE_DIR:?KOPT_SOURCE_DIR must point at the kopt source tree}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- build as the demo does: the kernel folder alone, build.sh, no cmake -----------------------
cp -r "$src/kernels/cpu" "$work/kernel"
rm -rf "$work/kernel/build"
(cd "$work/kernel" && ./build.sh) || fail "build.sh failed"
bench="$work/kernel/build/cpu_gemm_bench"
[ -x "$bench" ] || fail "build.sh did not produce build/cpu_gemm_bench"

# --- and as a top-level cmake project (fresh repo layout) --------------------------------------
if command -v cmake >/dev/null; then
  cmake -S "$work/kernel" -B "$work/cmake-build" >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "cmake configure of kernels/cpu alone failed"; }
  cmake --build "$work/cmake-build" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "cmake build of kernels/cpu alone failed"; }
  [ -x "$work/cmake-build/cpu_gemm_bench" ] || fail "top-level cmake build has no cpu_gemm_bench"
fi

quick=(--time-cap-ms 20 --min-samples 3)
header='label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr'

# --- full run: CSV shape, all PASS, B = 1, samples file shape ----------------------------------
"$bench" --summary-csv "$work/all.csv" --samples "$work/all.jsonl" --seed 7 "${quick[@]}" 2>"$work/all.err" \
  || { cat "$work/all.err"; fail "full run exited non-zero"; }
[ "$(head -n1 "$work/all.csv")" = "$header" ] || fail "CSV header differs from the frozen GEMM schema"
if grep -q $'\r' "$work/all.csv"; then fail "CSV has CR line ends"; fi
expected_labels=$("$bench" --list-shapes | awk '{print $1}' | paste -sd, -)
[ "$(tail -n +2 "$work/all.csv" | cut -d, -f1 | paste -sd, -)" = "$expected_labels" ] \
  || fail "CSV rows are not the shape table in order"
tail -n +2 "$work/all.csv" | awk -F, '$2 != 1 || $6 != "PASS" || NF != 15 { bad = 1 } END { exit bad }' \
  || { cat "$work/all.csv"; fail "a default-config row is not B=1, PASS, 15 fields"; }

python3 - "$work/all.jsonl" "$expected_labels" 7 <<'EOF' || fail "samples file does not follow the contract"
import json, math, sys
path, labels, seed = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
lines = open(path).read().split("\n")
assert lines[-1] == "", "samples file must end with a newline"
objs = [json.loads(l) for l in lines[:-1]]
head = objs[0]
assert head == {"kopt_samples": 1, "harness": "cpu_gemm_bench", "device": head["device"], "seed": seed}, head
assert isinstance(head["device"], str) and head["device"], head
want = [(l, d) for l in labels for d in ("forward", "backward")]
got = [(o["label"], o["direction"]) for o in objs[1:]]
assert got == want, (got, want)
for o in objs[1:]:
    assert set(o) == {"label", "direction", "unit", "times", "flops", "bytes", "stop"}, o.keys()
    assert o["unit"] == "ms" and o["stop"] in ("rsd", "time_cap", "max_samples"), o
    assert len(o["times"]) >= 3 and all(isinstance(t, float) and t > 0 and math.isfinite(t) for t in o["times"]), o
    assert o["flops"] > 0 and o["bytes"] > 0
print("samples ok:", len(objs) - 1, "lines")
EOF

# --- --shapes: subset, in the order given --------------------------------------------------------
"$bench" --summary-csv "$work/sub.csv" --samples "$work/sub.jsonl" --shapes odd,sq96 "${quick[@]}" 2>/dev/null \
  || fail "--shapes run exited non-zero"
[ "$(tail -n +2 "$work/sub.csv" | cut -d, -f1 | paste -sd, -)" = "odd,sq96" ] || fail "--shapes order not kept"
[ "$(wc -l <"$work/sub.jsonl")" -eq 5 ] || fail "--shapes samples file should have 1 + 2x2 lines"

# --- same seed, same correctness data: SNR columns identical across runs ------------------------
"$bench" --summary-csv "$work/again.csv" --seed 7 --shapes odd "${quick[@]}" 2>/dev/null
[ "$(grep '^odd,' "$work/all.csv" | cut -d, -f13)" = "$(tail -n1 "$work/again.csv" | cut -d, -f13)" ] \
  || fail "out_snr of the same seed differs between runs"

# --- an unknown label: exit 2, naming it; nothing written --------------------------------------
set +e
"$bench" --summary-csv "$work/bad.csv" --shapes sq96,no_such_shape 2>"$work/bad.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "unknown label should exit 2, got $rc"
grep -q "no_such_shape" "$work/bad.err" || fail "the unknown-label error does not name the label"
[ ! -e "$work/bad.csv" ] || fail "a failed run must not leave a CSV behind"

# --- the correctness-breaking knob: FAIL on the odd shape only, still exit 0 -------------------
cp -r "$src/kernels/cpu" "$work/broken"
rm -rf "$work/broken/build"
sed -i 's/^#define GEMM_K_TAIL_FIX 1$/#define GEMM_K_TAIL_FIX 0/' "$work/broken/gemm_config.h"
grep -q '^#define GEMM_K_TAIL_FIX 0$' "$work/broken/gemm_config.h" || fail "could not flip GEMM_K_TAIL_FIX"
(cd "$work/broken" && ./build.sh)
"$work/broken/build/cpu_gemm_bench" --summary-csv "$work/broken.csv" "${quick[@]}" 2>/dev/null \
  || fail "a FAIL row must not make the harness exit non-zero"
[ "$(tail -n +2 "$work/broken.csv" | awk -F, '{print $1 "=" $6}' | paste -sd' ' -)" = \
  "sq96=PASS sq192=PASS rect=PASS odd=FAIL skinny=PASS" ] || { cat "$work/broken.csv"; fail "GEMM_K_TAIL_FIX 0 should fail only 'odd'"; }

# --- the Python quick harness: its own self-test (pure python3, no torch), and every Python file
# of the harness and the Triton samples compiles ---------------------------------------------------
python3 "$src/harness/python/quick_test_bench.py" --self-test || fail "harness/python/quick_test_bench.py --self-test failed"
for f in "$src"/harness/python/quick_test_bench.py "$src"/kernels/triton/*.py "$src"/kernels/cpu/knob_effects.py; do
  python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" || fail "$f does not compile"
done
# The planted-slowdown switch of the Triton configs: label lookup and errors (no torch needed).
PYTHONDONTWRITEBYTECODE=1 python3 - "$src/kernels/triton" <<'EOF2' || fail "KOPT_PLANT_SLOWDOWN parsing"
import sys
sys.path.insert(0, sys.argv[1])
from bench_common import parse_plant, harness
shapes = [("mm_4k", 1, 4096, 4096, 4096), ("mm_1k", 1, 1024, 1024, 1024)]
dims = lambda s: (s["M"], s["N"], s["K"])
assert parse_plant("mm_4k:0.03", shapes, "gemm", dims) == ("mm_4k", (4096, 4096, 4096), 0.03)
for bad, fragment in [("nope:0.03", "unknown label"), ("mm_4k", "expected <label>:<fraction>"),
                      ("mm_4k:x", "not a number"), ("mm_4k:1.5", "in (0, 1)")]:
    try:
        parse_plant(bad, shapes, "gemm", dims)
        raise SystemExit("accepted %r" % bad)
    except harness.HarnessError as e:
        assert e.exit_code == 2 and fragment in str(e), (bad, str(e))
print("plant parsing ok")
EOF2
echo "cpu_kernel_harness: ok"
