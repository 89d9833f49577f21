#!/usr/bin/env bash
# harness/python/quick_test_bench.py end to end on CPU tensors (--device cpu), with the known reward hacks as
# kernel modules: an honest kernel PASSes; address- and shape-keyed output caches, input mutation,
# an output never written (or half of it, from the second call) and a precision downgrade FAIL; a
# kernel that computes later calls ahead finds nothing to compute; patching a timer (or the stream
# switch) at import or lazily during a call stops the run (exit 3, no CSV); a module that does not
# import gives FAIL rows; a call's time pays the write-back drain behind it, less the clean drain.
# Needs a python3 with torch (Debian: python3-torch); skipped (77) without one.
set -euo pipefail
src=${KOPT_SOURCE_DIR:?KOPT_SOURCE_DIR must point at the kopt source tree}
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with torch"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export PYTHONDONTWRITEBYTECODE=1

mk() { cat >"$work/$1.py"; }
mk honest <<'EOF'
def forward(a, b): return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk addr_cache <<'EOF'
_c = {}
def forward(a, b):
    k = (a.data_ptr(), b.data_ptr())
    if k not in _c: _c[k] = a @ b
    return _c[k]
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk shape_cache <<'EOF'
_c = {}
def forward(a, b):
    k = tuple(a.shape)
    if k not in _c: _c[k] = a @ b
    return _c[k].clone()
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk mutate <<'EOF'
def forward(a, b): return a @ b
def backward(a, b, g):
    out = (g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g)
    g.zero_()
    return out
EOF
mk unwritten <<'EOF'
import torch
def forward(a, b): return torch.empty(a.shape[:-1] + (b.shape[-1],), dtype=a.dtype)
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk lowprec <<'EOF'
def forward(a, b): return (a.bfloat16() @ b.bfloat16()).to(a.dtype)
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
# Honest in the full check (its first call), then misbehaving: only the per-call checks of the
# timed calls, which run stacked a chunk at a time, can catch these.
mk late_wrong <<'EOF'
n = [0]
def forward(a, b):
    n[0] += 1
    return a @ b if n[0] == 1 else (a @ b) * 1.01
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk late_mutate <<'EOF'
n = [0]
def forward(a, b):
    n[0] += 1
    out = a @ b
    if n[0] > 1: a[..., 0, 0] += 1.0
    return out
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk late_unwritten <<'EOF'
import torch
n = [0]
def forward(a, b):
    n[0] += 1
    return a @ b if n[0] == 1 else torch.empty(a.shape[:-1] + (b.shape[-1],), dtype=a.dtype)
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
# Writes the first half of its output, from its second call on: the unwritten-output check reads
# 512 secret positions of an output this large, and the NaN poison left in the other half shows.
mk late_half_unwritten <<'EOF'
import torch
n = [0]
def forward(a, b):
    n[0] += 1
    full = a @ b
    if n[0] == 1:
        return full
    out = torch.empty(full.shape, dtype=a.dtype)
    out[..., : full.shape[-1] // 2] = full[..., : full.shape[-1] // 2]
    return out
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
# Computes ahead: at each call, every ring slot that holds inputs of this shape gets its product
# computed and kept with a copy of its inputs; a later call on exactly those inputs gets the kept
# product (and says so on stderr). With a batch's inputs all written before its first call, one
# call did every call's work and the rest read as free; written just before each call, no slot
# ever holds a later call's inputs yet.
mk precompute_ahead <<'EOF'
import gc, sys, torch
_kept = {}
def _ring():
    for o in gc.get_objects():
        if type(o).__name__ == "ShapeBench" and getattr(o, "ring", None):
            return o.ring
    return []
def forward(a, b):
    kept = _kept.get((a.data_ptr(), b.data_ptr()))
    if kept is not None and torch.equal(kept[0], a) and torch.equal(kept[1], b):
        print("precompute hit", file=sys.stderr)
        return kept[2].clone()
    for slot in _ring():
        x, y = slot[0], slot[1]
        if x.shape == a.shape and y.shape == b.shape:
            _kept[(x.data_ptr(), y.data_ptr())] = (x.clone(), y.clone(), x @ y)
    return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk replay_generator <<'EOF'
import gc, sys, torch
_predicted = []
def _bench():
    for o in gc.get_objects():
        if type(o).__name__ == "ShapeBench" and getattr(o, "gen", None) is not None:
            return o
def forward(a, b):
    if any(torch.equal(p[0], a) and torch.equal(p[1], b) for p in _predicted):
        print("replay hit", file=sys.stderr)
    sb = _bench()
    if sb is not None:  # draw what the next slot would hold if the generator's state carried over
        g = torch.Generator(device=a.device)
        g.set_state(sb.gen.get_state())
        _predicted[:] = [(torch.empty_like(a).normal_(generator=g), torch.empty_like(b).normal_(generator=g))]
    return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk tamper_import <<'EOF'
import torch
torch.cuda.Event.elapsed_time = lambda self, other: 0.001
def forward(a, b): return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk tamper_lazy <<'EOF'
def forward(a, b):
    import time
    time.perf_counter = lambda: 0.0
    return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk tamper_stream <<'EOF'
import torch
torch.cuda.set_stream = lambda stream: None  # keep the harness on one stream, whichever it asks for
def forward(a, b): return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk tamper_memory <<'EOF'
import torch
torch.cuda.max_memory_allocated = lambda *a, **k: 1 << 50  # a huge batch: the harness would time it on one stream
def forward(a, b): return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk broken <<'EOF'
def forward(a, b) return a
EOF
cat >"$work/config.py" <<EOF
import os, sys
sys.path.insert(0, "$src/harness/python")
import quick_test_bench as h
cfg = dict(BACKEND="TORCH", KIND="gemm", KERNEL_MODULE=os.path.join("$work", os.environ["MOD"] + ".py"),
           FORWARD="forward", BACKWARD="backward", INPUT_DTYPE="fp32", CHECK="fp32",
           SHAPES=[("s1", 1, 64, 48, 32), ("s2", 2, 40, 24, 20)])
sys.exit(h.main(config=cfg))
EOF

run() {  # [CONFIG=FILE] run MODULE -> sets rc, leaves $work/out.csv (or not)
  rm -f "$work/out.csv" "$work/out.jsonl"
  set +e
  MOD=$1 "$py" "${CONFIG:-$work/config.py}" --device cpu --summary-csv "$work/out.csv" --samples "$work/out.jsonl" \
    --time-cap-s 0.05 --min-samples 3 2>"$work/err.log"
  rc=$?
  set -e
}
checks() { tail -n +2 "$work/out.csv" | cut -d, -f1,"${1:-6}" | paste -sd' ' -; }  # [Check column]

run honest
[ "$rc" -eq 0 ] || { cat "$work/err.log"; fail "honest kernel: exit $rc"; }
[ "$(checks)" = "s1,PASS s2,PASS" ] || fail "honest kernel should PASS: $(checks)"
[ "$(wc -l <"$work/out.jsonl")" -eq 5 ] || fail "samples file should have 1 + 2 shapes x 2 directions lines"

for m in addr_cache shape_cache mutate unwritten lowprec; do
  run "$m"
  [ "$rc" -eq 0 ] || { cat "$work/err.log"; fail "$m: exit $rc (FAIL rows must still exit 0)"; }
  [ "$(checks)" = "s1,FAIL s2,FAIL" ] || { cat "$work/err.log"; fail "$m should FAIL every shape: $(checks)"; }
done

for m in late_wrong:"failed the per-call check" late_mutate:"modified their inputs" \
         late_unwritten:"returned with their output unwritten" \
         late_half_unwritten:"returned with their output unwritten"; do
  run "${m%%:*}"
  [ "$rc" -eq 0 ] || { cat "$work/err.log"; fail "${m%%:*}: exit $rc"; }
  [ "$(checks)" = "s1,FAIL s2,FAIL" ] || { cat "$work/err.log"; fail "${m%%:*} should FAIL every shape: $(checks)"; }
  grep -q "shape s1, forward batch: [0-9]* call(s) ${m#*:}" "$work/err.log" || { cat "$work/err.log"; fail "${m%%:*}: no '${m#*:}'"; }
done

run precompute_ahead
[ "$rc" -eq 0 ] || { cat "$work/err.log"; fail "precompute_ahead: exit $rc"; }
[ "$(checks)" = "s1,PASS s2,PASS" ] || { cat "$work/err.log"; fail "precompute_ahead computes right and should PASS: $(checks)"; }
hits=$(grep -c "precompute hit" "$work/err.log" || true)
[ "$hits" -eq 0 ] || fail "precompute_ahead found $hits call(s) whose inputs it had computed ahead"

run replay_generator
[ "$rc" -eq 0 ] || { cat "$work/err.log"; fail "replay_generator: exit $rc"; }
[ "$(checks)" = "s1,PASS s2,PASS" ] || { cat "$work/err.log"; fail "replay_generator computes right and should PASS: $(checks)"; }
hits=$(grep -c "replay hit" "$work/err.log" || true)
[ "$hits" -eq 0 ] || fail "replay_generator predicted the inputs of $hits call(s) from the harness's generator"

for m in tamper_import tamper_lazy tamper_stream tamper_memory; do
  run "$m"
  [ "$rc" -eq 3 ] || { cat "$work/err.log"; fail "$m: expected exit 3, got $rc"; }
  grep -q "timer tampering detected" "$work/err.log" || fail "$m: no tampering message"
  [ ! -e "$work/out.csv" ] || fail "$m: a tampered run must not write a CSV"
done

# A memory-bound op (KIND "memory"): each timed call is compared with the module's reference on
# the call's own inputs (SNR and max |out - ref| from one difference per output).
mk rms_mem <<'EOF'
import torch
def make_inputs(shape, dtype, device, generator):
    x = torch.randn((shape["B"] * shape["M"], shape["N"]), generator=generator, device=device).to(dtype)
    w = (1.0 + 0.1 * torch.randn((shape["N"],), generator=generator, device=device)).to(dtype)
    return x, w
def reference_forward(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w.float()
def forward(x, w): return reference_forward(x, w).to(x.dtype)
EOF
mk rms_mem_late_wrong <<'EOF'
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from rms_mem import make_inputs, reference_forward
n = [0]
def forward(x, w):
    n[0] += 1
    y = reference_forward(x, w).to(x.dtype)
    if n[0] > 1:
        y[0] *= 1.5  # from the second call on, one row in 16-64 off by half: 18-24 dB
    return y
EOF
sed -e 's/KIND="gemm"/KIND="memory"/' -e 's/BACKWARD="backward"/BACKWARD=""/' \
    -e 's/SHAPES=.*/SHAPES=[("m1", 1, 64, 96), ("m2", 2, 16, 40)])/' "$work/config.py" >"$work/config_mem.py"
CONFIG=$work/config_mem.py run rms_mem
[ "$rc" -eq 0 ] || { cat "$work/err.log"; fail "honest memory-bound kernel: exit $rc"; }
[ "$(checks 5)" = "m1,PASS m2,PASS" ] || { cat "$work/err.log"; fail "honest memory-bound kernel should PASS: $(checks 5)"; }
max_err=$(tail -n +2 "$work/out.csv" | cut -d, -f12 | paste -sd' ' -)
python3 -c "import sys; sys.exit(0 if all(0 <= float(x) < 1e-5 for x in sys.argv[1:]) else 1)" $max_err ||
  fail "honest memory-bound kernel: max_abs_err should be finite and tiny, got '$max_err'"
CONFIG=$work/config_mem.py run rms_mem_late_wrong
[ "$(checks 5)" = "m1,FAIL m2,FAIL" ] || { cat "$work/err.log"; fail "a memory-bound kernel wrong from its second call should FAIL: $(checks 5)"; }
grep -q "shape m1, forward batch: [0-9]* call(s) failed the per-call check" "$work/err.log" ||
  { cat "$work/err.log"; fail "rms_mem_late_wrong: no per-call failure named"; }

# The write-back charge's arithmetic through a real batch, on a device whose clock moves only in
# its drains: 2 units for the clean drain before each call, 5 for the drain behind it. Each call's
# time must be its start-to-end time (0 here) plus 5 less the batch's median clean drain: 3.
cat >"$work/drain_charge.py" <<EOF
import sys
sys.path.insert(0, "$src/harness/python")
import quick_test_bench as h

class TickDevice(h.CpuDevice):
    """A clock that only the drains move: 5 ticks behind a call, 2 behind a null slot."""
    drains = True
    clock = 0.0
    in_null = False
    nulls = 0
    def record(self, event, stream): event.t = self.clock
    def elapsed(self, start, end): return end.t - start.t
    def drain(self): self.clock += 2.0 if self.in_null else 5.0

null_slot = h.ShapeBench._null_slot
def counted_null_slot(sb, events, hs):
    sb.dev.in_null, sb.dev.nulls = True, sb.dev.nulls + 1
    try:
        null_slot(sb, events, hs)
    finally:
        sb.dev.in_null = False
h.ShapeBench._null_slot = counted_null_slot

cfg = dict(BACKEND="TORCH", KIND="gemm", KERNEL_MODULE="$work/honest.py", FORWARD="forward",
           BACKWARD="backward", INPUT_DTYPE="fp32", CHECK="fp32", SHAPES=[("s1", 1, 64, 48, 32)])
shapes = h.validate_config(cfg)
dev = TickDevice()
op, error = h.load_op(cfg, "$work", dev, h.torch_dtype("fp32", False, ""), shapes)
assert op is not None, error
sb = h.ShapeBench(op, shapes[0], 7, "fp32")
assert sb.passed
dev.nulls = 0
batch = sb.run_batch("forward", 12)
assert batch["errors"] == 0, batch["problems"]
assert dev.nulls == h.null_slots(12 + 1), dev.nulls  # 12 queued calls and one joined
assert batch["times"] and all(t == 3.0 for t in batch["times"]), batch["times"]
assert sb.batch_time.charge_ms == [3.0] * len(batch["times"]), sb.batch_time.charge_ms
print("drain charge ok")
EOF
"$py" "$work/drain_charge.py" >"$work/drain.log" 2>&1 || { cat "$work/drain.log"; fail "the write-back charge is not start-to-end plus the drain less the null slots' drain"; }

run broken
[ "$rc" -eq 0 ] || fail "broken module: exit $rc"
[ "$(checks)" = "s1,FAIL s2,FAIL" ] || fail "a module that does not import should give FAIL rows"
grep -q "importing the kernel module failed" "$work/err.log" || fail "import failure not reported"

# The input fingerprints from the ring's cached word views equal the uncached ones and see a write
# (the cache saves about 57 torch calls of host time per timed call: bench/harness_host_calls.py).
# Both check paths: the memory-bound reference and the GEMM's Freivalds projections.
for kind in memory gemm; do
  "$py" "$src/bench/harness_host_calls.py" --check --kind "$kind" >"$work/host_calls.out" 2>&1 ||
    { cat "$work/host_calls.out"; fail "bench/harness_host_calls.py --check --kind $kind"; }
done
echo "cpu_kernel_quick_harness: ok"
