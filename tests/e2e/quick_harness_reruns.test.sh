#!/usr/bin/env bash
# harness/python/quick_test_bench.py on CPU tensors: a batch that the harness's own evidence says
# was disturbed (torch's allocator went to the driver inside it, or a timed call read a time that
# is not positive and finite) is discarded and run again, at most BATCH_RERUNS times, and only a
# batch disturbed in every attempt fails the shape, naming the cause. Events are injected through
# the CPU device (CpuDevice.fake_allocator, CpuDevice.fake_skew_s) by the kernel module's calls, as
# an honest kernel's allocation meets cudaMalloc on a GPU; the escape check runs on a CPU device
# that plays a side stream (work a call leaves behind is waited for only by a device-wide join).
# Checked: one allocator event or one negative time: the batch is run again and the shape PASSes,
# the discarded attempt's times left out; an event in every attempt: the shape fails with the
# cause; a discarded attempt's failed checks still count; an escape in every batch fails, with or
# without an allocator event in every call; an escape that only an allocator event explains is
# excused; the input ring is sized to the worker's share of the device's memory.
# Deterministic: no sleeps, no timing-dependent asserts. Needs a python3 with torch (Debian:
# python3-torch); skipped (77) without one.
set -euo pipefail
src=${KOPT_SOURCE_DIR:?KOPT_SOURCE_DIR must point at the kopt source tree}
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with torch"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONDONTWRITEBYTECODE=1

# The kernel: an honest GEMM whose calls do what the test queues for them on the device they find
# in DEVICE (set by the test): PLAN, one entry per call, then EVERY for each call after.
cat >"$work/injecting.py" <<'EOF'
DEVICE = [None]
PLAN = []
EVERY = [""]
def _inject():
    what = PLAN.pop(0) if PLAN else EVERY[0]
    d = DEVICE[0]
    wrong = False
    for w in what.split("+"):
        if w == "malloc":  # torch.empty met no cached block: cudaMalloc
            d.fake_allocator[1] += 1
        elif w == "retry":  # the allocator freed its cache and retried
            d.fake_allocator[0] += 1
            d.fake_allocator[2] += 1
        elif w == "negative":  # the end event reads a second before the start
            d.fake_skew_s = -1.0
        elif w == "escape":  # 50 ms of work left behind on "another stream"
            d.left_s = 0.05
        elif w == "wrong":
            wrong = True
    return wrong
def forward(a, b):
    wrong = _inject()
    return (a @ b) * (1.5 if wrong else 1.0)
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF

cat >"$work/reruns.py" <<EOF
import io, contextlib, os, sys
sys.path.insert(0, "$src/harness/python")
import quick_test_bench as h

failures = []
def check(cond, what):
    if not cond:
        failures.append(what)

# The harness's clock, moved on by the waits of EscapeDevice's joins (no sleeping): the events and
# the host wall time around a batch see the same waits, as they would on a GPU.
_real_clock, waited = h._perf_counter, [0.0]
h._perf_counter = lambda: _real_clock() + waited[0]

class EscapeDevice(h.CpuDevice):
    """A CPU device with a side stream: what a call leaves behind (left_s) is waited for only by a
    synchronize before the next event, as a joined call's device-wide join waits for it; an event
    recorded first means the work ran beside the timed stream, untimed."""
    can_escape = True
    join_ms = 20.0  # the escape bound sits 20 ms above the queued median: no host hiccup crosses it twice
    left_s = 0.0
    def synchronize(self):
        waited[0] += self.left_s
        self.left_s = 0.0
    def record(self, event, stream):
        h.CpuDevice.record(self, event, stream)
        self.left_s = 0.0

cfg = dict(BACKEND="TORCH", KIND="gemm", KERNEL_MODULE="$work/injecting.py", FORWARD="forward",
           BACKWARD="backward", INPUT_DTYPE="fp32", CHECK="fp32", SHAPES=[("s1", 1, 64, 48, 32)])
shapes = h.validate_config(cfg)

def worker(device_cls=h.CpuDevice):
    dev = device_cls()
    op, error = h.load_op(cfg, "$work", dev, h.torch_dtype("fp32", False, ""), shapes)
    assert op is not None, error
    k = op.module
    k.DEVICE[0] = dev
    k.PLAN[:] = []
    k.EVERY[0] = ""
    w = h.Worker(cfg, shapes, dev, op, None)
    p = w.handle("prepare", {"shape": "s1", "seed": 11})
    assert p["check"] == "PASS", p
    return w, k, w.benches["s1"]

def batch(w, calls=8, seed=5):
    return w.handle("batch", {"shape": "s1", "calls": calls, "seed": seed})

def refused(w, calls=8):
    try:
        batch(w, calls)
    except h.RequestError as e:
        return str(e)
    return ""

def row_check(w):
    return w.handle("row", {"shape": "s1"})["row"].split(",")[5]

log = io.StringIO()
with contextlib.redirect_stderr(log):
    # 1. One cudaMalloc in the forward batch's first attempt: run again, PASS, its times left out.
    w, k, sb = worker()
    k.PLAN[:] = ["malloc"]
    b = batch(w)
    check(b["reruns"] == 1 and b["errors"] == 0, "one allocator event: one re-run, no error: %r" % b)
    check("forward batch run again: the allocator went to the driver inside it (retries 0, cudaMalloc 1, cudaFree 0)"
          in b["problem"], "the re-run names its cause: %r" % b["problem"])
    check([len(s["times_ms"]) for s in b["series"]] == [8, 8], "calls' times per direction: %r" % b["series"])
    check(len(sb.times["forward"]) == 8 and sb.batch_time.batches == 2,
          "the discarded attempt's times and split are not kept: %d times, %d batches"
          % (len(sb.times["forward"]), sb.batch_time.batches))
    b = batch(w, seed=6)
    check(b["reruns"] == 0 and b["errors"] == 0, "a clean batch is not run again: %r" % b)
    check(row_check(w) == "PASS", "one allocator event: the shape PASSes")

    # 2. One timed call that reads negative: run again, PASS.
    w, k, sb = worker()
    k.PLAN[:] = ["negative"]
    b = batch(w)
    check(b["reruns"] == 1 and b["errors"] == 0 and "a timed call read -" in b["problem"],
          "a negative time: one re-run naming it: %r" % b)
    check(all(t > 0 for s in b["series"] for t in s["times_ms"]), "only positive times reach kopt")
    check(row_check(w) == "PASS", "one negative time: the shape PASSes")

    # 3. Two disturbed attempts, the third clean: the bound is 2 re-runs.
    w, k, sb = worker()
    k.PLAN[:] = ["retry"] + [""] * 8 + ["retry"]  # the first call of the first two attempts (9 calls each)
    b = batch(w)
    check(b["reruns"] == 2 and b["errors"] == 0, "two disturbed attempts: two re-runs: %r" % b)
    check(row_check(w) == "PASS", "two re-runs: the shape PASSes")

    # 4. An event in every attempt (every call allocates): past the bound, the shape fails, cause named.
    w, k, sb = worker()
    k.EVERY[0] = "retry"
    why = refused(w)
    check("disturbed in 3 attempts in a row" in why and "retries 9, cudaMalloc 0, cudaFree 9" in why,
          "an allocator event in every attempt fails the batch, naming it: %r" % why)
    check(row_check(w) == "FAIL", "an allocator event in every attempt: the shape is FAIL")
    w, k, sb = worker()
    k.EVERY[0] = "negative"
    why = refused(w)
    check("disturbed in 3 attempts in a row" in why and "a timed call read -" in why,
          "a negative time in every attempt fails the batch, naming it: %r" % why)

    # 5. A discarded attempt's failed checks still count: an allocation does not excuse a wrong output.
    w, k, sb = worker()
    k.PLAN[:] = ["malloc+wrong"]
    b = batch(w)
    check(b["reruns"] == 1 and b["errors"] >= 1, "the discarded attempt's wrong call counts: %r" % b)
    check(row_check(w) == "FAIL", "a wrong call in a discarded attempt: the shape is FAIL")

    # 6. The escape check (a side stream on the CPU device). Work left behind by every call: each
    #    joined call and its confirmation read it, so the batch fails the check, and the shape.
    w, k, sb = worker(EscapeDevice)
    k.EVERY[0] = "escape"
    b = batch(w)
    check(b["reruns"] == 0 and b["errors"] >= 1 and "work escaped the timed stream" in b["problem"],
          "a side stream in every call fails the escape check: %r" % b)
    check(row_check(w) == "FAIL", "a side stream: the shape is FAIL")
    #    The same kernel allocating in every call too: its escapes are never excused (past the bound).
    w, k, sb = worker(EscapeDevice)
    k.EVERY[0] = "escape+malloc"
    why = refused(w)
    check("disturbed in 3 attempts in a row" in why and "cudaMalloc" in why,
          "a side stream with an allocation in every call fails past the bound: %r" % why)
    check(row_check(w) == "FAIL", "a side stream hiding behind allocations: the shape is FAIL")
    #    An honest kernel whose slow joined call came with an allocator retry (the allocator's stall
    #    inside the join): the attempt is run again, not called an escape. Every call of the first
    #    attempt (9) and its confirmation stall; the second attempt is clean.
    w, k, sb = worker(EscapeDevice)
    k.PLAN[:] = ["escape+retry"] * 10
    b = batch(w)
    check(b["reruns"] == 1 and b["errors"] == 0, "a join slowed by an allocator retry is run again: %r" % b)
    check(row_check(w) == "PASS", "a join slowed by an allocator retry: the shape PASSes")
    #    Without the allocator's evidence the same slow join is an escape: nothing excuses it.
    w, k, sb = worker(EscapeDevice)
    k.PLAN[:] = ["escape"] * 10
    b = batch(w)
    check(b["reruns"] == 0 and b["errors"] >= 1, "a slow join without allocator events is an escape: %r" % b)

    # 7. CLI mode: the same rule in measure_shape's batches.
    dev = h.CpuDevice()
    op, error = h.load_op(cfg, "$work", dev, h.torch_dtype("fp32", False, ""), shapes)
    op.module.DEVICE[0] = dev
    opts = h.parse_args(["--device", "cpu", "--min-samples", "160", "--max-samples", "160"])
    opts.warmup_min, opts.warmup_max = 2, 2
    # The full check and the forward warm-up call the kernel at most 1 + 2 + 9 + 9 + 144 times, and
    # the 160 timed calls take 10 batches of 18: call 171 is in a timed batch.
    op.module.PLAN[:] = [""] * 170 + ["malloc"]
    mark = len(log.getvalue())
    row, series = h.measure_shape(op, shapes[0], opts, "fp32")
    check(row["Check"] == "PASS", "CLI: one allocator event, the shape PASSes: %r" % row)
    check(len(series[0]["times"]) == 160, "CLI: the discarded attempt's times are not kept: %d" % len(series[0]["times"]))
    check("forward batch run again (1 of 2): the allocator went to the driver" in log.getvalue()[mark:],
          "CLI: the re-run is logged")
    op.module.EVERY[0] = "malloc"
    op.module.PLAN[:] = []
    try:
        h.measure_shape(op, shapes[0], opts, "fp32")
        check(False, "CLI: an allocator event in every call must fail the shape")
    except h.SpoiledBatch as e:
        check("disturbed in 3 attempts" in str(e), "CLI: %s" % e)

    # 8. The ring: at most RING_OF_SHARE of the worker's share of the free memory, which
    #    KOPT_WORKERS_ON_DEVICE divides.
    class SmallDevice(h.CpuDevice):
        def free_memory(self):
            return 8 << 20
    sizes = {}
    for n in ("2", "6"):
        os.environ[h.WORKERS_ENV] = n
        dev = SmallDevice()
        op, error = h.load_op(cfg, "$work", dev, h.torch_dtype("fp32", False, ""), shapes)
        op.module.DEVICE[0] = dev
        sb = h.ShapeBench(op, shapes[0], 3, "fp32")
        sb._build_ring()
        set_bytes = sum(t.numel() * t.element_size() for t in sb.ring[0])
        sizes[n] = len(sb.ring)
        check(dev.workers == int(n), "the device reads %s workers" % n)
        check(len(sb.ring) * set_bytes <= h.RING_OF_SHARE * 0.9 * (8 << 20) / int(n) + set_bytes,
              "%s workers: a ring of %d sets of %d bytes fits the share" % (n, len(sb.ring), set_bytes))
    del os.environ[h.WORKERS_ENV]
    check(sizes["6"] < sizes["2"] and sizes["6"] >= 2, "six workers get smaller rings than two: %r" % sizes)

for f in failures:
    print("FAIL: %s" % f)
if failures:
    print("--- harness log:")
    print(log.getvalue())
    sys.exit(1)
print("reruns ok")
EOF
"$py" "$work/reruns.py" || exit 1
echo "quick_harness_reruns: ok"
