"""Shared by matmul_bench.py, rmsnorm_bench.py and template_timing.py: where the harness lives and
the planted-slowdown switch used to validate kopt's gate (docs/gpu-validation.md).

KOPT_PLANT_SLOWDOWN=<label>:<fraction>, e.g. mm_4k:0.03: the kernel module's plant_slowdown(dims,
fraction) makes that shape do `fraction` more work while the harness reports the original size.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.normpath(os.path.join(HERE, "..", "..", "harness", "python"))
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)

import quick_test_bench as harness  # noqa: E402  (captures the timers before any kernel import)

PLANT_ENV = "KOPT_PLANT_SLOWDOWN"


def parse_plant(spec, shapes, kind, dims_of):
    """'<label>:<fraction>' -> (label, dims, fraction); errors name the problem (exit 2)."""
    label, sep, frac = spec.rpartition(":")
    if not sep or not label:
        raise harness.HarnessError("%s=%r: expected <label>:<fraction>, e.g. mm_4k:0.03" % (PLANT_ENV, spec), 2)
    try:
        fraction = float(frac)
    except ValueError:
        raise harness.HarnessError("%s: fraction %r is not a number" % (PLANT_ENV, frac), 2)
    if not (0 < fraction < 1):
        raise harness.HarnessError("%s: fraction must be in (0, 1), got %r" % (PLANT_ENV, fraction), 2)
    by_label = {s["label"]: s for s in harness.normalize_shapes(shapes, kind)}
    if label not in by_label:
        raise harness.HarnessError("%s: unknown label %r (known: %s)" % (PLANT_ENV, label, ",".join(by_label)), 2)
    return label, dims_of(by_label[label]), fraction


def plant_hook(shapes, kind, dims_of):
    """A KERNEL_HOOK for the harness: applies KOPT_PLANT_SLOWDOWN to the freshly imported module.
    `dims_of(shape)` gives the key the kernel module's plant_slowdown() expects."""

    def hook(module, _selected):
        spec = os.environ.get(PLANT_ENV, "")
        if not spec:
            return
        label, dims, fraction = parse_plant(spec, shapes, kind, dims_of)
        actual = module.plant_slowdown(dims, fraction)
        print("planted slowdown: shape %s %s runs %.4f more work (asked %.4f); reported size unchanged"
              % (label, dims, actual, fraction), file=sys.stderr)

    return hook
