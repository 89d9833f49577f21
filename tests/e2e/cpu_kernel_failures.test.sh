#!/usr/bin/env bash
# A kernel that throws, crashes, hangs, skips writing its output or writes into its inputs costs
# its shape a FAIL row (nan metrics for throw/crash/hang), never a missing row or a harness crash;
# the other shapes are still measured and PASS, and the harness exits 0 because the table was written.
set -euo pipefail
src=${KOPT_SOURCE_DIR:?KOPT_SOURCE_DIR must point at the kopt source tree}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cp -r "$src/kernels/cpu" "$work/kernel"
rm -rf "$work/kernel/build"
# Plant one misbehaviour per shape, keyed on M (see the shape table: sq96 M=96, sq192 M=192,
# rect M=128, odd M=150, skinny M=16).
python3 - "$work/kernel/gemm.cpp" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
anchor = "void forward(const float* A, const float* B, float* C, int M, int N, int K) {\n"
assert anchor in s, "gemm.cpp forward() signature changed; update this test"
plant = anchor + """  if (M == 150) throw std::runtime_error("planted throw");
  if (M == 96) { volatile int spin = 0; while (spin == 0) {} }
  if (M == 16) { volatile int* p = nullptr; *p = 1; }
  if (M == 128) return;  // never writes C: the NaN poison must be seen
"""
s = s.replace(anchor, plant)
s = "#include <stdexcept>\n" + s
anchor_b = "  std::vector<float> bt(static_cast<std::size_t>(N) * K);  // B^T: N x K\n"
assert anchor_b in s, "gemm.cpp backward() body changed; update this test"
s = s.replace(anchor_b, anchor_b + "  if (M == 192) const_cast<float*>(A)[0] += 1.0f;  // writes into an input\n")
open(p, "w").write(s)
EOF
(cd "$work/kernel" && ./build.sh 2>/dev/null)

set +e
"$work/kernel/build/cpu_gemm_bench" --summary-csv "$work/out.csv" --samples "$work/out.jsonl" \
  --shape-timeout-s 3 --time-cap-ms 20 --min-samples 3 2>"$work/err.log"
rc=$?
set -e
cat "$work/err.log" >&2
[ "$rc" -eq 0 ] || fail "harness exited $rc; FAIL rows must still give exit 0"
[ "$(tail -n +2 "$work/out.csv" | wc -l)" -eq 5 ] || fail "every shape needs a row"

row() { grep "^$1," "$work/out.csv"; }
nan_row() {
  [ "$(row "$1" | cut -d, -f6-)" = "FAIL,nan,nan,nan,nan,nan,nan,nan,nan,nan" ] \
    || fail "$1 ($2) should be a FAIL row with nan metrics: $(row "$1")"
}
nan_row odd "throw"
nan_row skinny "crash"
nan_row sq96 "hang"
grep -q "odd: kernel threw: planted throw" "$work/err.log" || fail "the throw is not reported"
grep -q "skinny: crashed with signal" "$work/err.log" || fail "the crash is not reported"
grep -q "sq96: no result within" "$work/err.log" || fail "the hang is not reported"
# Output never written: FAIL, out_snr nan (poisoned output), timings still there.
[ "$(row rect | cut -d, -f6)" = "FAIL" ] || fail "a kernel that never writes C must FAIL: $(row rect)"
[ "$(row rect | cut -d, -f13)" = "nan" ] || fail "rect out_snr should be nan (poisoned output)"
# Input mutation in backward: FAIL although the results themselves are right.
[ "$(row sq192 | cut -d, -f6)" = "FAIL" ] || fail "a kernel that writes into its inputs must FAIL: $(row sq192)"
grep -q "sq192: backward modified its inputs" "$work/err.log" || fail "the input mutation is not reported"
# Samples: no lines for shapes with no measurement (throw, crash, hang).
python3 - "$work/out.jsonl" <<'EOF' || fail "samples file wrong for failed shapes"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
labels = sorted({o["label"] for o in objs[1:]})
assert labels == ["rect", "sq192"], labels
EOF
echo "cpu_kernel_failures: ok"
