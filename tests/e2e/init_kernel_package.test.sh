#!/usr/bin/env bash
# kopt init on a kernel package (docs/byo-kernel.md, "A kernel package"): the hooks file defines no
# @triton.jit itself and imports the kernels from the repository's package, so init follows the
# imports, takes TRITON as the backend and puts the kernel files in kernel_source, and its summary
# says which files a round may change. And a validation run whose shape FAILs is refused with the
# harness's own line on the cause, not a log tail a compiler's chatter fills. No torch needed: the
# failing run is a stand-in Python (--python) that writes the FAIL row the harness would.
source "$(dirname "$0")/lib/common.sh"
require_commands git
export_git_identity
fail() { echo "FAIL: $*"; exit 1; }

repo="$E2E_TMP/my-rmsnorm"
mkdir -p "$repo/rmsnorm"
cat >"$repo/bench_hooks.py" <<'PY'
import torch
from rmsnorm import rms_norm_fwd, rms_norm_bwd

FORWARD_SAVES = True

def make_inputs(shape, dtype, device, generator):
    return ()

def forward(x, w):
    return rms_norm_fwd(x, w)

def backward(x, w, grad_out, saved):
    return rms_norm_bwd(x, w, grad_out, saved)

def reference_forward(x, w):
    return x
PY
printf 'from .forward import rms_norm_fwd\nfrom .backward import rms_norm_bwd\n' >"$repo/rmsnorm/__init__.py"
printf 'import triton\nfrom ._utils import grid\n\n@triton.jit\ndef _fwd(x):\n    pass\n\ndef rms_norm_fwd(x, w):\n    pass\n' \
  >"$repo/rmsnorm/forward.py"
printf 'import triton\n\n@triton.autotune(configs=[], key=["n"])\n@triton.jit\ndef _bwd(x):\n    pass\n\ndef rms_norm_bwd(*a):\n    pass\n' \
  >"$repo/rmsnorm/backward.py"
printf 'def grid(n):\n    return (n,)\n' >"$repo/rmsnorm/_utils.py"
git -C "$repo" init -q -b main && git -C "$repo" add -A && git -C "$repo" commit -qm "rmsnorm package"

(cd "$repo" && "$KOPT_BIN" init --kernel bench_hooks.py --gpu sm_90 --shape r=1,64,64 --no-validate --no-commit \
  </dev/null >"$E2E_TMP/init.out" 2>&1) || { cat "$E2E_TMP/init.out"; fail "kopt init refused the kernel package"; }
grep -q "on TRITON / sm_90" "$E2E_TMP/init.out" || { cat "$E2E_TMP/init.out"; fail "the backend is not TRITON"; }
grep -q "imports the Triton kernels of rmsnorm/forward.py, rmsnorm/backward.py" "$E2E_TMP/init.out" ||
  { cat "$E2E_TMP/init.out"; fail "the summary does not name the imported kernels"; }
grep -q "a round may change only bench_hooks.py, rmsnorm/forward.py, rmsnorm/backward.py" "$E2E_TMP/init.out" ||
  { cat "$E2E_TMP/init.out"; fail "the summary does not say what a round may change"; }
grep -q -- "--kernel-source PATH, once per file (repeatable)" "$E2E_TMP/init.out" ||
  { cat "$E2E_TMP/init.out"; fail "the summary does not say how to change the list"; }
python3 - "$repo/kopt/manifest.yaml" "$repo/kopt/bench.json" <<'PY' || fail "the written files disagree with the summary"
import json, re, sys
manifest = open(sys.argv[1]).read()
listed = re.search(r"^kernel_source:\n((?:  - .*\n)+)", manifest, re.M).group(1)
assert [l.strip()[2:].strip('"') for l in listed.splitlines()] == \
    ["bench_hooks.py", "rmsnorm/forward.py", "rmsnorm/backward.py"], listed
assert "target_backend: TRITON" in manifest, manifest
assert json.load(open(sys.argv[2]))["backend"] == "TRITON"
PY

# A shape that FAILs: the refusal quotes the harness's line on why, however much the log holds after it.
cat >"$E2E_TMP/fake-python" <<'SH'
#!/usr/bin/env bash
csv=""
while [[ $# -gt 0 ]]; do [[ $1 == --summary-csv ]] && csv=$2; shift; done
echo "quick_test_bench: shape r: TypeError: backward() missing 1 required positional argument: 'saved'" >&2
for i in $(seq 1 300); do echo "UserWarning: compiler chatter $i" >&2; done
printf 'label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,Forward Time (ms),Backward Time (ms),max_abs_err\n' >"$csv"
printf 'r,1,64,64,FAIL,nan,nan,nan,nan,nan,nan,nan\n' >>"$csv"
SH
chmod +x "$E2E_TMP/fake-python"
if (cd "$repo" && "$KOPT_BIN" init --kernel bench_hooks.py --gpu sm_90 --shape r=1,64,64 --force --no-commit \
      --python "$E2E_TMP/fake-python" </dev/null >"$E2E_TMP/failed.out" 2>&1); then
  cat "$E2E_TMP/failed.out"; fail "a FAIL row passed the validation"
fi
grep -q "shape r is FAIL; the harness said:" "$E2E_TMP/failed.out" || { cat "$E2E_TMP/failed.out"; fail "the refusal names no cause"; }
grep -q "quick_test_bench: shape r: TypeError: backward() missing 1 required positional argument: 'saved'" "$E2E_TMP/failed.out" ||
  { cat "$E2E_TMP/failed.out"; fail "the refusal does not quote the harness's own line"; }
echo "PASS: kopt init followed the hooks file's imports to its Triton kernels and quoted the harness's cause of a FAIL row"
