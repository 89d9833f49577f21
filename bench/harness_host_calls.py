#!/usr/bin/env python3
"""Counts the torch calls the Python harness makes on the host per timed call, by phase, on the CPU:

    python3 bench/harness_host_calls.py           # the table (docs/performance.md)
    python3 bench/harness_host_calls.py --check   # also: the cached-words fingerprints equal the uncached

On a GPU each torch call is a dispatch of several microseconds, and a batch's spin must cover the
host's queueing of every call: on an H100 the Triton RMSNorm's batches sat at their floor of 3 calls
with about 2.9 ms of host time a call (docs/gpu-validation.md, twenty-first session). The count is
the same on any machine (the harness's code path, not the device), so it is measured here: a batch
of 8 and one of 24 calls per direction on the sample RMSNorm's hooks with its reference as the
kernel (bf16, a 64 x 256 shape), and the difference over the 18 more slots (joined calls included)
is one call's share. Phases: `call` (launch, events, the unwritten-output snapshot), `refill` (new
inputs), `fingerprint rows` (input fingerprints before the call and in its check), `check` (the
stacked per-call check but the reference), `check: reference` (the per-call reference). The last
column counts the calls that queue device work or allocate (not a metadata read or a view): on a
GPU those are the ones that cost several microseconds each. Needs a python3 with torch.
"""
import argparse
import ast
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness", "python"))

import torch  # noqa: E402
from torch.overrides import TorchFunctionMode  # noqa: E402

import quick_test_bench as q  # noqa: E402

def kernel_source():
    """The sample Triton RMSNorm's own hooks (EPS, make_inputs, reference_forward,
    reference_backward: read out of kernels/triton/rmsnorm.py without importing Triton), with a
    forward and backward that are the reference itself, so the op runs on the CPU."""
    path = os.path.join(HERE, "..", "kernels", "triton", "rmsnorm.py")
    text = open(path, encoding="utf-8").read()
    keep = {"EPS", "make_inputs", "reference_forward", "reference_backward"}
    parts = ["import torch"]
    for node in ast.parse(text).body:
        names = {t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)} | {getattr(node, "name", None)}
        if names & keep:
            parts.append(ast.get_source_segment(text, node))
    parts.append("def forward(x, w):\n    return reference_forward(x, w).to(x.dtype)")
    parts.append("def backward(x, w, grad_out):\n    dx, dw = reference_backward(x, w, grad_out)\n"
                 "    return dx.to(x.dtype), dw.to(w.dtype)")
    return "\n\n".join(parts) + "\n"
PHASES = ("call", "refill", "fingerprint rows", "check", "check: reference")
# Torch calls that read metadata or make a view: no device work, no allocation (well under a
# microsecond on the host); every other call queues device work or allocates (several on a GPU).
METADATA = {"__get__", "numel", "stride", "data_ptr", "is_contiguous", "is_floating_point", "dim", "size", "view",
            "detach", "unsqueeze", "t", "contiguous", "__getitem__", "element_size", "reshape", "transpose"}


# --kind gemm: torch's matmul as the kernel, checked the GEMM way (Freivalds projections).
GEMM_SOURCE = ("import torch\n\n"
               "def forward(a, b):\n    return torch.matmul(a, b)\n\n"
               "def backward(a, b, g):\n    return torch.matmul(g, b.t()), torch.matmul(a.t(), g)\n")


def bench_for(shapes, folder, kind="memory"):
    path = os.path.join(folder, "op_host.py")
    with open(path, "w") as f:
        f.write(kernel_source() if kind == "memory" else GEMM_SOURCE)
    cfg = {"BACKEND": "TORCH", "BACKEND_ENV": "", "KIND": kind, "KERNEL_MODULE": path, "FORWARD": "forward",
           "BACKWARD": "backward", "INPUT_DTYPE": "bf16", "CHECK": "bf16", "SHAPES": shapes}
    shapes = q.validate_config(cfg)
    op, err = q.load_op(cfg, folder, q.CpuDevice(), torch.bfloat16, shapes)
    if op is None:
        sys.exit("harness_host_calls: the op did not load: " + err)
    return op, shapes


def count_calls(op, shape):
    sb = q.ShapeBench(op, shape, 5, "bf16")
    for d in sb.directions:
        sb.warmup(d, 2)
    phase = ["other"]
    counts = collections.Counter()

    class Count(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            counts[phase[0]] += 1
            if getattr(func, "__name__", "") not in METADATA:
                counts["device ops"] += 1
            return func(*args, **(kwargs or {}))

    def wrap(obj, name, label):
        orig = getattr(obj, name)

        def inner(*a, **k):
            prev, phase[0] = phase[0], label
            try:
                return orig(*a, **k)
            finally:
                phase[0] = prev
        setattr(obj, name, inner)

    wrap(sb, "_call", "call")
    wrap(sb, "_refill", "refill")
    wrap(sb, "_check", "check")
    wrap(op, "reference_forward", "check: reference")
    wrap(op, "reference_backward", "check: reference")
    rows = q._Fingerprinter.rows

    def counted_rows(self, *a, **k):
        prev, phase[0] = phase[0], "fingerprint rows"
        try:
            return rows(self, *a, **k)
        finally:
            phase[0] = prev
    q._Fingerprinter.rows = counted_rows
    out = {}
    try:
        for d in sb.directions:
            seen = {}
            for n in (8, 24):
                counts.clear()
                with Count():
                    sb.run_batch(d, n, keep=False)
                seen[n] = dict(counts)
            slots = (24 + 24 // 8) - (8 + 8 // 8)
            out[d] = {p: (seen[24].get(p, 0) - seen[8].get(p, 0)) / slots for p in set(seen[8]) | set(seen[24])}
    finally:
        q._Fingerprinter.rows = rows
    return out


def check_cached_words(op, shapes):
    """The ring's cached word views give the fingerprints the uncached path gives, see a write, and
    follow an input re-pointed to other storage (x.set_: the cached view would read the old one)."""
    for shape in shapes:
        sb = q.ShapeBench(op, shape, 5, "bf16")
        sb._build_ring()
        slots = sb._refill(5)
        cached = lambda: q._Fingerprinter(77, sb.verify_budget, sb.ring_words.of)  # noqa: E731
        a, b = cached().rows(slots), q._Fingerprinter(77, sb.verify_budget).rows(slots)
        if not (torch.equal(a, b) and torch.equal(cached().rows(slots[:1]), b[:1])):
            sys.exit("harness_host_calls: %s: cached and uncached fingerprints differ" % shape["label"])
        slots[2][0].view(-1)[0] += 1
        c = cached().rows(slots)
        if torch.equal(c[2], b[2]) or not torch.equal(c[0], b[0]):
            sys.exit("harness_host_calls: %s: a write to one slot was not seen in its row alone" % shape["label"])
        x = slots[3][0]
        x.set_(x.clone())  # same contents, new storage: the row must not change...
        same = cached().rows(slots)
        x.view(-1)[0] += 1  # ...and a write to the new storage must show
        moved = cached().rows(slots)
        if not torch.equal(same[3], c[3]) or torch.equal(moved[3], c[3]) or \
                not torch.equal(moved, q._Fingerprinter(77, sb.verify_budget).rows(slots)):
            sys.exit("harness_host_calls: %s: an input re-pointed to other storage was not followed" % shape["label"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="also check the cached-words fingerprints")
    ap.add_argument("--kind", choices=("memory", "gemm"), default="memory",
                    help="memory: the sample RMSNorm's hooks (default); gemm: torch's matmul, 32 x 32 x 32")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if a.kind == "gemm":
            op, shapes = bench_for([("g", 1, 32, 32, 32)], folder, "gemm")
        else:
            # "odd": 15 bf16 elements, 30 bytes: the int16-word path of _words
            op, shapes = bench_for([("r", 1, 64, 256), ("odd", 1, 3, 5)], folder)
        if a.check:
            check_cached_words(op, shapes)
            print("harness_host_calls: cached-words fingerprints equal the uncached ones, see a write, and follow "
                  "a re-pointed input")
        per = count_calls(op, shapes[0])
    print("| direction | " + " | ".join(PHASES) + " | all | of them device ops |")
    print("|---" * (len(PHASES) + 3) + "|")
    for d, c in per.items():
        ops = c.pop("device ops", 0)
        print("| %s | %s | %.0f | %.0f |" % (d, " | ".join("%.0f" % c.get(p, 0) for p in PHASES), sum(c.values()), ops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
