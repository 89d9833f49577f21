#!/usr/bin/env python3
"""kopt quick bench harness for Triton or any torch-callable kernel (CUDA and ROCm).

Copied into a campaign directory by kopt at PREPARE_ENVIRONMENT and frozen at BASELINE. Run as

    python quick_test_bench.py --summary-csv PATH --samples PATH [--shapes L1,L2] [--seed N]
    python quick_test_bench.py --serve          # bench worker, harness/WORKER-PROTOCOL.md

It writes the frozen-schema CSV (GEMM: TFLOPS schema; KIND = "memory": GB/s schema) and the
raw-sample JSON Lines side file (one line per shape and direction, every per-call time in ms).
With --serve it is a long-lived bench worker: JSON-lines requests on stdin (hello, prepare, batch,
row, quit), replies on a duplicate of the original stdout; fd 1 is pointed at stderr before the
kernel module is imported, so what the kernel prints cannot reach the reply channel.
`python quick_test_bench.py --self-test` checks the pure-Python parts without torch or a GPU.

What it does that the skill's perf_counter template does not (loop-contract section 7):
- queued timing in batches: a GPU spin (torch.cuda._sleep) lets the host run ahead, then per call
  flush, start event, the call, end event, checks, all queued on the timed stream with no host
  synchronisation between the flush and the start event, and one synchronisation per batch. The
  events time the kernel, not Python's launch path (measurement review, section 2.2). Each batch
  is timed on the next of the worker's 16 timing streams, current for that batch: a stream's own
  fixed offset (1-5 % of a small kernel on the H200) then averages out of every arm instead of
  staying with the process that happened to get it (Device.next_timing_stream);
- side streams: right after each call, on the timed stream, its outputs are checked for the NaN
  poison (an output written on another stream is not there yet); and a few extra calls per batch,
  at secret positions, record their end event after a device-wide synchronize: a joined time far
  above the batch's queued median (> 1.5x + 20 us, confirmed once) is "work escaped the timed
  stream", a failed call; unless torch's allocator went to the driver inside the batch (or a timed
  call read no positive finite time): such a batch is run again, at most BATCH_RERUNS times;
- host wall time as a bound: the event times of a batch must add up to no more than the host wall
  time around it; timer functions captured when this file is imported, before the kernel module is
  imported, and compared again afterwards: a kernel module that replaces
  torch.cuda.Event.elapsed_time / record, torch.cuda.synchronize, torch.cuda._sleep,
  torch.cuda.set_stream or time.perf_counter makes the run fail (exit 3, no CSV) with a message naming what changed;
- every timed call gets inputs with new contents, from a ring of input sets that are all alive at
  once and together larger than the L2 (so consecutive calls see different addresses), refilled
  by GPU RNG between batches; every timed call is verified after its events (a Freivalds
  projection for GEMMs, a per-call reference for memory-bound ops) on the device, into an error
  counter read once per batch, so identity-, address- or shape-keyed caches and deferred work fail
  instead of winning;
- the reference runs on independent clones, in true fp32 (TF32 off while it runs, whatever the
  kernel module set); outputs are NaN-poisoned before every call (the
  caching allocator's free blocks of the output sizes are filled with NaN); inputs are
  fingerprinted before and after each call, so a kernel that writes into its inputs fails;
- the L2/LLC is flushed before every timed call with a buffer sized to the device (>= 2x L2 and
  >= 256 MB; >= 512 MB on ROCm, whose Infinity Cache is the last level), and persisting-L2 lines
  are reset (cudaCtxResetPersistingL2Cache) before every batch where the runtime offers it (the
  call is not stream-ordered, so it cannot sit between queued calls);
- adaptive sampling (CLI mode): at least MIN_SAMPLES per direction, batches of 16 calls until the
  relative spread reaches the target, or the per-shape time cap, or MAX_SAMPLES;
- per-dtype correctness: SNR thresholds (FP8 E4M3 25 dB, E5M2 20 dB, FP4 10 dB), allclose for
  bf16/fp16 (1e-2) and fp32 (1e-4), NaN/Inf counts; a shape that throws gets a FAIL row with nan.

Kernel module contract (KERNEL_MODULE: a dotted module name or a path to a .py file):
  GEMM (KIND = "gemm"): forward(a, b) -> c, with a [M, K] (or [B, M, K]) and b [K, N] (or
    [B, K, N]); backward(a, b, grad_out) -> (grad_a, grad_b), or BACKWARD = "autograd" to
    differentiate through forward, or BACKWARD = "" for a forward-only op. Optional
    make_inputs(shape, dtype, device, generator) -> (a, b).
  Memory-bound (KIND = "memory"): make_inputs(shape, dtype, device, generator) -> tuple of
    tensors, forward(*inputs) -> tensor or tuple, reference_forward(*inputs) -> same (any
    precision; compared in fp32), optional backward(*inputs, grad_out) -> tuple of grads and
    reference_backward(*inputs, grad_out) (default: autograd through reference_forward in fp32),
    optional bytes_moved(shape, inputs, outputs, direction) -> bytes (default: every input and
    output tensor read or written once).
  `shape` is a dict {"label", "B", "M", "N"[, "K"]}. FORWARD/BACKWARD may name a dotted attribute
  (e.g. KERNEL_MODULE = "torch", FORWARD = "matmul" to measure a torch op).

The kopt-filled lines are between the ">>> kopt config" markers below. The backend placeholder
token is exactly __KOPT_BACKEND__ (PREPARE_ENVIRONMENT replaces it, e.g. with TRITON); SHAPES is
one line, `SHAPES = []`, replaced at BASELINE by a one-line Python list of
(label, B, M, N, K) tuples (memory-bound: (label, B, M, N)).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import math
import os
import random
import sys
import time
import types

# The timer functions, captured before anything else can touch them.
_perf_counter = time.perf_counter

try:  # torch is optional so that --self-test and py_compile work anywhere
    import torch  # noqa: F401
except Exception:  # pragma: no cover - depends on the machine
    torch = None

# >>> kopt config: kopt edits only the lines between these markers <<<
BACKEND = "__KOPT_BACKEND__"
BACKEND_ENV = ""  # e.g. "PRIMUS_TURBO_GEMM_BACKEND": exported as BACKEND before the kernel import
KIND = "gemm"  # "gemm" (TFLOPS schema) or "memory" (GB/s schema)
KERNEL_MODULE = ""  # dotted module name or path to a .py file
FORWARD = "forward"
BACKWARD = "backward"  # a function name, "autograd", or "" (forward only)
INPUT_DTYPE = "bf16"  # fp32 | bf16 | fp16 | fp8_e4m3 | fp8_e5m2
CHECK = "bf16"  # correctness class: fp32 | bf16 | fp16 | fp8_e4m3 | fp8_e5m2 | fp4
SHAPES = []
# >>> end kopt config <<<

BACKEND_PLACEHOLDER = "__KOPT_" + "BACKEND__"  # spelled in two parts so filling the line above cannot touch it
HARNESS_NAME = "quick_test_bench"

GEMM_COLUMNS = [
    "label", "B", "M", "N", "K", "Check", "Forward TFLOPS", "Forward TFLOPS_stddev", "Backward TFLOPS",
    "Backward TFLOPS_stddev", "Forward Time (ms)", "Backward Time (ms)", "out_snr", "da_snr", "db_snr",
]
MEMORY_COLUMNS = [
    "label", "B", "M", "N", "Check", "Forward GB/s", "Forward GB/s_stddev", "Backward GB/s",
    "Backward GB/s_stddev", "Forward Time (ms)", "Backward Time (ms)", "max_abs_err",
]

# Correctness classes (loop-contract section 4). "snr": every SNR must exceed the dB value;
# "allclose": every output must be allclose(rtol=atol=value). Per-call projections (Freivalds) use
# `call_snr_db` as their floor: wrong or stale outputs land near 0 dB, far below it.
CHECKS = {
    "fp32": {"kind": "allclose", "tol": 1e-4, "call_snr_db": 60.0},
    "bf16": {"kind": "allclose", "tol": 1e-2, "call_snr_db": 30.0},
    "fp16": {"kind": "allclose", "tol": 1e-2, "call_snr_db": 30.0},
    "fp8_e4m3": {"kind": "snr", "snr_db": 25.0, "call_snr_db": 20.0},
    "fp8_e5m2": {"kind": "snr", "snr_db": 20.0, "call_snr_db": 15.0},
    "fp4": {"kind": "snr", "snr_db": 10.0, "call_snr_db": 7.0},
}

DEFAULTS = {
    "min_samples": 10,
    "max_samples": 400,
    "target_rsd": 0.005,  # nvbench's default noise target
    "time_cap_s": 2.0,  # per shape, split 1/3 forward, 2/3 backward
    "warmup_min": 2,
    "warmup_max": 4,  # a random count in [min, max]: the phase cannot be found by counting calls
}


class HarnessError(Exception):
    """A problem of the harness or its configuration (not of the kernel): exit non-zero."""

    def __init__(self, message, exit_code=1):
        super().__init__(message)
        self.exit_code = exit_code


class TamperError(HarnessError):
    def __init__(self, message):
        super().__init__(message, exit_code=3)


# ----------------------------------------------------------------------------------------------
# Pure helpers (no torch): numbers, statistics, shapes, CSV and samples files.

def fmt(x):
    """%.6g, with nan/inf spelled the way kopt's reader expects (never "-nan")."""
    if x is None:
        return "nan"
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%.6g" % x


def fmt_exact(x):
    """Shortest repr that reads back as the same float (repr), nan/inf spelled for JSON readers."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        raise ValueError("non-finite value cannot go into the samples file: %r" % x)
    return repr(x)


def snr_db(ref, out):
    """10*log10(|ref|^2 / |out-ref|^2) over two equal-length sequences: inf when exact, nan when out
    holds NaN/Inf, -inf when the reference is all zero but the output is not."""
    if len(ref) != len(out):
        raise ValueError("snr_db: lengths differ (%d vs %d)" % (len(ref), len(out)))
    signal = noise = 0.0
    for r, o in zip(ref, out):
        o = float(o)
        if math.isnan(o) or math.isinf(o):
            return float("nan")
        signal += float(r) * float(r)
        noise += (o - float(r)) ** 2
    if noise == 0.0:
        return float("inf")
    if signal == 0.0:
        return float("-inf")
    return 10.0 * math.log10(signal / noise)


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def pstddev(v):
    """Population standard deviation: the convention of the frozen `_stddev` columns."""
    if not v:
        return float("nan")
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / len(v))


def rsd(v):
    """Sample standard deviation over the mean (the stopping rule's noise measure)."""
    if len(v) < 2:
        return float("inf")
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) / m


def median(v):
    if not v:
        return float("nan")
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class Sampler:
    """Adaptive stopping rule of one (shape, direction): returns a stop reason or None."""

    def __init__(self, min_samples, max_samples, target_rsd, cap_s, clock=None):
        self.min_samples, self.max_samples = min_samples, max_samples
        self.target_rsd, self.cap_s = target_rsd, cap_s
        self.clock = clock or _perf_counter
        self.start = self.clock()

    def stop(self, times):
        n = len(times)
        if n >= self.max_samples:
            return "max_samples"
        if n < self.min_samples:
            return None
        if rsd(times) <= self.target_rsd:
            return "rsd"
        if self.clock() - self.start >= self.cap_s:
            return "time_cap"
        return None


def check_verdict(check_class, snrs, allclose_ok, nonfinite):
    """PASS iff no NaN/Inf in any output and the class's criterion holds for every output."""
    spec = CHECKS[check_class]
    if nonfinite:
        return False
    if spec["kind"] == "snr":
        return all(s > spec["snr_db"] for s in snrs)  # nan compares False
    return bool(allclose_ok)


def flush_bytes(l2_bytes, is_rocm):
    """Size of the cache-flush buffer: >= 2x the reported L2, >= 256 MB, and >= 512 MB on ROCm
    (MI300-class: a 256 MB Infinity Cache sits behind a small reported L2)."""
    floor = (512 if is_rocm else 256) << 20
    return max(2 * int(l2_bytes or 0), floor)


def drain_bytes(l2_bytes, is_rocm):
    """Size of the read that ends each timed call (Device.drain): it evicts what the call left
    dirty in the L2, so the call pays for writing its own output back. 2x the reported L2 and 64 MB
    at least; on ROCm the flush's size (the Infinity Cache behind the small reported L2)."""
    if is_rocm:
        return flush_bytes(l2_bytes, True)
    return max(2 * int(l2_bytes or 0), 64 << 20)


def _positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise HarnessError("SHAPES: %s must be a positive integer, got %r" % (what, value), 2)
    return value


def normalize_shapes(shapes, kind):
    """SHAPES entries -> list of dicts. Accepts (label, B, M, N[, K]) tuples, tuples without the label
    (a label is derived), or dicts with those keys. Errors name the entry and the fix."""
    dims = ["B", "M", "N", "K"] if kind == "gemm" else ["B", "M", "N"]
    out, seen = [], set()
    for i, entry in enumerate(shapes):
        where = "SHAPES[%d]" % i
        if isinstance(entry, dict):
            missing = [d for d in dims if d not in entry]
            if missing:
                raise HarnessError("%s is missing %s (a %s shape needs %s)" % (where, ",".join(missing), kind, ",".join(dims)), 2)
            vals = [entry[d] for d in dims]
            label = entry.get("label")
        elif isinstance(entry, (tuple, list)):
            items = list(entry)
            label = items.pop(0) if items and isinstance(items[0], str) else None
            if len(items) != len(dims):
                raise HarnessError("%s has %d numbers; a %s shape is (label, %s)" % (where, len(items), kind, ", ".join(dims)), 2)
            vals = items
        else:
            raise HarnessError("%s must be a tuple (label, %s) or a dict, got %r" % (where, ", ".join(dims), entry), 2)
        vals = [_positive_int(v, "%s.%s" % (where, d)) for v, d in zip(vals, dims)]
        shape = dict(zip(dims, vals))
        if label is None:
            body = "x".join(str(shape[d]) for d in dims[1:])
            label = body if shape["B"] == 1 else "b%d_%s" % (shape["B"], body)
        if not isinstance(label, str) or not label or any(c in label for c in ',"\n\r'):
            raise HarnessError("%s: label %r must be a non-empty string without commas, quotes or newlines" % (where, label), 2)
        if label in seen:
            raise HarnessError("%s: label %r appears twice; labels must be unique" % (where, label), 2)
        seen.add(label)
        shape["label"] = label
        out.append(shape)
    return out


def select_shapes(shapes, wanted):
    """--shapes L1,L2: the named shapes in the order given; an unknown label is exit 2."""
    if not wanted:
        return list(shapes)
    by_label = {s["label"]: s for s in shapes}
    chosen, seen = [], set()
    for label in wanted:
        if label not in by_label:
            known = ",".join(by_label) or "(SHAPES is empty)"
            raise HarnessError("unknown shape label '%s' (known: %s)" % (label, known), 2)
        if label in seen:
            raise HarnessError("shape label '%s' given twice in --shapes" % label, 2)
        seen.add(label)
        chosen.append(by_label[label])
    return chosen


def csv_text(kind, rows):
    """The frozen CSV: header + one line per row, LF line ends, no BOM, numbers via fmt()."""
    columns = GEMM_COLUMNS if kind == "gemm" else MEMORY_COLUMNS
    lines = [",".join(columns)]
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c)
            if c in ("label", "Check"):
                cells.append(str(v))
            elif c in ("B", "M", "N", "K"):
                cells.append(str(int(v)))
            else:
                cells.append(fmt(v))
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def samples_text(device, seed, series, hooks=None):
    """JSON Lines: header object, then one object per (shape, direction) that has samples. `hooks`:
    the kernel module's hooks_fingerprint, which kopt compares across the arms of a pair."""
    head = {"kopt_samples": 1, "harness": HARNESS_NAME, "device": device, "seed": seed}
    if hooks:
        head["hooks"] = hooks
    lines = [json.dumps(head, separators=(",", ":"))]
    for s in series:
        if not s["times"]:
            continue
        obj = {
            "label": s["label"], "direction": s["direction"], "unit": "ms",
            "times": [float(fmt_exact(t)) for t in s["times"]],
            "flops": s.get("flops"), "bytes": s.get("bytes"), "stop": s["stop"],
        }
        lines.append(json.dumps(obj, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def write_atomically(path, text):
    """Whole file or nothing: write a temporary sibling, then rename over the target."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog=HARNESS_NAME, description="kopt quick bench harness")
    ap.add_argument("--summary-csv", help="frozen-schema CSV output (default: stdout)")
    ap.add_argument("--samples", help="raw-sample JSON Lines output")
    ap.add_argument("--shapes", help="comma-separated labels to run, in this order")
    ap.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    ap.add_argument("--min-samples", type=int, default=DEFAULTS["min_samples"])
    ap.add_argument("--max-samples", type=int, default=DEFAULTS["max_samples"])
    ap.add_argument("--target-rsd", type=float, default=DEFAULTS["target_rsd"])
    ap.add_argument("--time-cap-s", type=float, default=DEFAULTS["time_cap_s"], help="per shape, both directions")
    ap.add_argument("--config", help="the harness's JSON config sidecar (kopt init writes it; docs/byo-kernel.md)")
    ap.add_argument("--device", choices=["cuda", "cpu"], default=None,
                    help="cuda (CUDA or ROCm GPU, the default) or cpu (tests the harness itself); "
                         "default: the config's device, else cuda")
    ap.add_argument("--require-pass", action="store_true",
                    help="exit 1 unless every shape's Check is PASS (a test_command; the CSV is still written)")
    ap.add_argument("--list-shapes", action="store_true")
    ap.add_argument("--serve", action="store_true",
                    help="bench worker: JSON-lines requests on stdin, replies on stdout (harness/WORKER-PROTOCOL.md)")
    ap.add_argument("--self-test", action="store_true", help="test the pure-Python parts (no torch, no GPU)")
    a = ap.parse_args(argv)
    if a.seed < 0:
        raise HarnessError("--seed must be a non-negative integer", 2)
    if a.min_samples < 2 or a.max_samples < a.min_samples:
        raise HarnessError("need 2 <= --min-samples <= --max-samples", 2)
    if a.target_rsd <= 0 or a.time_cap_s <= 0:
        raise HarnessError("--target-rsd and --time-cap-s must be positive", 2)
    a.shape_list = [s.strip() for s in a.shapes.split(",") if s.strip()] if a.shapes else []
    if a.shapes is not None and not a.shape_list:
        raise HarnessError("--shapes needs at least one label", 2)
    return a


# ----------------------------------------------------------------------------------------------
# Timer integrity: identities captured at import, compared after the kernel module is imported
# and again before any result is written.

TIMER_PATHS = [
    "time.perf_counter", "time.perf_counter_ns", "time.monotonic", "time.time",
    "torch.cuda.synchronize", "torch.cuda.Event", "torch.cuda.Event.__init__", "torch.cuda.Event.record",
    "torch.cuda.Event.elapsed_time", "torch.cuda.Event.synchronize", "torch.cuda.Event.query",
    "torch.cuda.current_stream", "torch.cuda.Stream.synchronize", "torch.cuda.Stream.wait_event",
    "torch._C._cuda_synchronize", "torch._C._CudaEventBase.record", "torch._C._CudaEventBase.elapsed_time",
    "torch._C._CudaEventBase.synchronize", "torch.cuda._sleep", "torch.cuda.Stream", "torch.cuda.set_stream",
    # what sets a shape's number of timing streams and logs the allocator: a kernel that fed the
    # harness its own figures could pin its arm to one stream and that stream's offset
    "torch.cuda.memory_stats", "torch.cuda.memory_allocated", "torch.cuda.max_memory_allocated",
    "torch.cuda.reset_peak_memory_stats",
]


def _resolve(path):
    """The object at a dotted path, read statically on classes (no descriptor binding), so the same
    attribute gives the same object each time. Missing -> None."""
    parts = path.split(".")
    obj = sys.modules.get(parts[0])
    for name in parts[1:]:
        if obj is None:
            return None
        if isinstance(obj, type):
            for klass in obj.__mro__:
                if name in vars(klass):
                    obj = vars(klass)[name]
                    break
            else:
                return None
        else:
            obj = getattr(obj, name, None)
    return obj


def capture_timers(paths=None):
    return {p: _resolve(p) for p in (paths or TIMER_PATHS)}


def changed_timers(captured):
    """Paths whose object is no longer the one captured (identity, not equality)."""
    return [p for p, obj in captured.items() if _resolve(p) is not obj]


_TIMERS = capture_timers()
# Captured before any kernel module is imported, like the timers: the checks' secrets come from it.
_URANDOM = os.urandom


def _since_process_start_ms():
    """Milliseconds since this process started (Linux /proc; None elsewhere): the worker logs where
    its start-up went, the part of a look kopt cannot see into."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime_s = float(f.read().split()[0])
        return (uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")) * 1e3
    except (OSError, ValueError, IndexError):
        return None


def _log_times(what, parts, tail=""):
    """One stderr line: where a phase's time went, e.g. 'prepare mm_1k: check 812 ms, ...', and
    `tail` after the times."""
    text = ", ".join("%s %s ms" % (k, "%.0f" % v if abs(v) >= 10 else "%.3g" % v) for k, v in parts if v is not None)
    text += (", " + tail) if tail else ""
    print("%s: time: %s: %s" % (HARNESS_NAME, what, text), file=sys.stderr)


def _fresh_seed():
    """63 random bits from the operating system, for the checks' secrets (projection vectors,
    fingerprint weights). Not from the request's seed: the kernel runs in this process and can
    read that seed, and fit its outputs to vectors derived from it (docs/integrity.md, referee
    hole 8). The projection vectors' seed is drawn per chunk, after the chunk's calls were queued;
    the fingerprint weights' per batch."""
    return int.from_bytes(_URANDOM(8), "little") >> 1


def assert_timers_intact(when):
    changed = changed_timers(_TIMERS)
    if changed:
        raise TamperError(
            "timer tampering detected %s: %s replaced since the harness was imported. The measurement "
            "is refused; the kernel module must not patch timing or synchronisation functions."
            % (when, ", ".join(changed)))


# ----------------------------------------------------------------------------------------------
# Everything below needs torch and a GPU.

_TORCH_DTYPES = {
    "fp32": "float32", "bf16": "bfloat16", "fp16": "float16",
    "fp8_e4m3": ("float8_e4m3fnuz", "float8_e4m3fn"), "fp8_e5m2": ("float8_e5m2fnuz", "float8_e5m2"),
}


def torch_dtype(name, is_rocm, arch=""):
    spec = _TORCH_DTYPES.get(name)
    if spec is None:
        raise HarnessError("INPUT_DTYPE %r is not one of %s" % (name, ", ".join(_TORCH_DTYPES)), 2)
    if isinstance(spec, tuple):  # MI300 (gfx942) uses the fnuz FP8 variants; others the OCP ones
        spec = spec[0] if (is_rocm and arch.startswith("gfx94")) else spec[1]
    dt = getattr(torch, spec, None)
    if dt is None:
        raise HarnessError("this torch has no %s (INPUT_DTYPE %s)" % (spec, name), 2)
    return dt


def _runtime_function(is_rocm, name):
    """A function of the GPU runtime torch already loaded (libcudart / libamdhip64, found in this
    process's mappings first), returning an int status; None when not found."""
    import ctypes
    lib = "libamdhip64" if is_rocm else "libcudart"
    candidates = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if line.strip() else ""
                if lib in path and path not in candidates:
                    candidates.append(path)
    except OSError:
        pass
    candidates += [lib + ".so"] if is_rocm else ["libcudart.so", "libcudart.so.12", "libcudart.so.13"]
    for c in candidates:
        try:
            fn = getattr(ctypes.CDLL(c), name)
            fn.restype = ctypes.c_int
            return fn
        except (OSError, AttributeError):
            continue
    return None


# Streams a worker times its batches on, one batch each in turn (Device.next_timing_stream). 16:
# twice the CUDA runtime's default 8 hardware connections, so every connection's offset enters
# each arm at least twice; more streams cost each its own allocator cache.
TIMING_STREAMS = 16
# What one worker's timing streams may hold in torch's allocator caches together: an eighth of the
# card (two workers share it, beside their rings and the other shapes' cached blocks). A shape whose
# batch needs more per stream is timed on fewer streams (timing_streams_within).
STREAM_MEMORY_SHARE = 0.125


# How many bench workers share this device's memory at once. kopt sets KOPT_WORKERS_ON_DEVICE where
# it starts them (a look's two arms; at BASELINE the two of every A/A session, all started at once:
# harness/WORKER-PROTOCOL.md); unset, a look's two. A worker's large allocations come out of its
# share (memory_share): what is free to it, less MEMORY_HEADROOM of that for torch's allocator and
# the kernel's own temporaries, over the workers. On an H100 six workers of an A/A (rings, stream
# caches and warm-ups sized as if there were two) took 80.5 of 81.5 GiB, and batches met allocator
# retries between their queued calls.
WORKERS_ENV = "KOPT_WORKERS_ON_DEVICE"
MEMORY_HEADROOM = 0.10
RING_OF_SHARE = 0.2  # the input ring takes at most this much of the share
STREAMS_OF_SHARE = 0.5  # the timing streams' cached batch temporaries, together, at most this much


def workers_on_device(environ=None):
    """KOPT_WORKERS_ON_DEVICE as a count of at least 1, or None when it is not a positive integer
    (2 when unset)."""
    text = (os.environ if environ is None else environ).get(WORKERS_ENV, "").strip()
    if not text:
        return 2
    return int(text) if text.isdigit() and int(text) >= 1 else None


def memory_share(available, workers, headroom=MEMORY_HEADROOM):
    """One worker's share of `available` bytes shared by `workers` workers, `headroom` of it left."""
    return max(0.0, (1.0 - headroom) * available / max(1, workers))


def _workers_from_env():
    n = workers_on_device()
    if n is None:
        print("%s: %s=%r is not a positive integer; sizing memory for 2 workers"
              % (HARNESS_NAME, WORKERS_ENV, os.environ.get(WORKERS_ENV)), file=sys.stderr)
        return 2
    return n


def timing_streams_within(need_bytes, total_bytes, pool, share=None):
    """How many of the `pool` timing streams a shape can take in turn when one of its batches has
    `need_bytes` live at once, which its stream's allocator cache then keeps: at most
    STREAM_MEMORY_SHARE of the card for all of them, at least one. On an 80 GB H100 a 16k x 4k
    RMSNorm's batch held gigabytes (its outputs, the checks' fp32 temporaries) per stream, and
    16 such caches per worker, two workers, outgrew the card: whole batches then read 12-15 % slow
    at fixed places (docs/gpu-validation.md, seventeenth session). The offset that the turn of
    streams averages out, 50-270 ns a launch, matters for kernels of microseconds, whose batches
    need little memory and keep all 16; for a kernel of 100 us it is a few tenths of a percent."""
    if need_bytes <= 0 or pool <= 1:
        return max(1, pool)
    budget = STREAM_MEMORY_SHARE * total_bytes
    if share is not None:  # and at most STREAMS_OF_SHARE of the worker's share (memory_share)
        budget = min(budget, STREAMS_OF_SHARE * share)
    return int(max(1, min(pool, budget // need_bytes)))


def _request_spin_wait(is_rocm):
    """Asks the runtime to spin, not sleep, while the host waits in a synchronize (flag 1:
    cudaDeviceScheduleSpin / hipDeviceScheduleSpin), before torch creates the context. A joined
    call's end event is recorded when the host wakes from its device-wide synchronize; with the
    default scheduling two worker processes on one CPU may be put to sleep there, and an honest
    18 us matmul read 0.45 ms joined on the H200, twice in a row, and failed as "work escaped the
    timed stream". True when the runtime took the flag."""
    fn = _runtime_function(is_rocm, "hipSetDeviceFlags" if is_rocm else "cudaSetDeviceFlags")
    status = fn(1) if fn is not None else -1
    if status != 0:
        print("%s: the runtime did not take spin-wait scheduling (status %s); joins may sleep"
              % (HARNESS_NAME, status), file=sys.stderr)
    return status == 0


class Device:
    """The GPU and the measurement primitives, all bound to objects captured at import."""

    can_escape = True  # a kernel can leave work on another stream than the timed one
    timing_streams = TIMING_STREAMS
    # A call's output is still dirty in the L2 at its end event, and the next call's flush, which
    # is not timed, used to write it back: the harness read memory-bound calls 6-23 % faster than a
    # launch-free reference that pays it (docs/gpu-validation.md, tenth session). So each timed
    # call is followed by a drain whose time counts, less the same drain behind a null slot (drain(),
    # ShapeBench._null_slot).
    drains = True

    def __init__(self):
        if torch is None:
            raise HarnessError("torch is not importable; the quick harness needs torch with CUDA or ROCm")
        if not torch.cuda.is_available():
            raise HarnessError("no GPU visible to torch (torch.cuda.is_available() is False)")
        self.is_rocm = getattr(torch.version, "hip", None) is not None
        self.spin_wait = _request_spin_wait(self.is_rocm)
        self.dev = torch.device("cuda", torch.cuda.current_device())
        props = torch.cuda.get_device_properties(self.dev)
        self.name = props.name
        self.arch = getattr(props, "gcnArchName", "") or ""
        self.l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        self.flush_buf = torch.empty(flush_bytes(self.l2, self.is_rocm) // 4, dtype=torch.int32, device=self.dev)
        words = drain_bytes(self.l2, self.is_rocm) // 4
        self._drain_buf = torch.zeros(words, dtype=torch.int32, device=self.dev)
        self._event_cls = _TIMERS["torch.cuda.Event"]
        self._record = _TIMERS["torch.cuda.Event.record"]
        self._elapsed = _TIMERS["torch.cuda.Event.elapsed_time"]
        self._query = _TIMERS["torch.cuda.Event.query"]
        self._sync = _TIMERS["torch.cuda.synchronize"]
        self._current_stream = _TIMERS["torch.cuda.current_stream"]
        self._sleep = _TIMERS["torch.cuda._sleep"]
        self._stream_cls = _TIMERS["torch.cuda.Stream"]
        self._set_stream = _TIMERS["torch.cuda.set_stream"]
        self._memory_stats = _TIMERS["torch.cuda.memory_stats"]
        self._memory_allocated = _TIMERS["torch.cuda.memory_allocated"]
        self._max_memory_allocated = _TIMERS["torch.cuda.max_memory_allocated"]
        self._reset_peak = _TIMERS["torch.cuda.reset_peak_memory_stats"]
        self._total_memory = int(getattr(props, "total_memory", 0) or 0)
        self.workers = _workers_from_env()
        self._timing_streams = None  # created at first use: see next_timing_stream
        self._timing_turn = 0
        self._reset_l2 = self._find_reset_persisting_l2()
        self._probe = torch.zeros(1, dtype=torch.int32, device=self.dev)
        # Calibrated at first use, not here: in worker mode kopt starts both arms' workers at once,
        # and a calibration timed while the other worker creates its CUDA context reads the other
        # process's GPU time. The first use is in a prepare, which kopt runs one worker at a time.
        self._cycles_per_ms = None
        self._join_ms = None

    def _find_reset_persisting_l2(self):
        """cudaCtxResetPersistingL2Cache from the runtime torch already loaded (pygpubench PR #49).
        ROCm has no persisting-L2 API; returns None there or when the symbol is not found."""
        if self.is_rocm:
            return None
        fn = _runtime_function(False, "cudaCtxResetPersistingL2Cache")
        if fn is None:
            print("%s: cudaCtxResetPersistingL2Cache not found; persisting-L2 lines are not reset" % HARNESS_NAME,
                  file=sys.stderr)
        return fn

    def _calibrate(self):
        if self._cycles_per_ms is None:
            self._cycles_per_ms = self._calibrate_spin()
            self._join_ms = self._calibrate_join()

    @property
    def join_ms(self):
        self._calibrate()
        return self._join_ms

    def _calibrate_spin(self):
        """Clock cycles of torch.cuda._sleep per millisecond, measured once: the spin is given in
        cycles, the batch needs it in time. 0 when this torch has no _sleep (then only the flush
        keeps the GPU ahead of the host)."""
        if self._sleep is None:
            print("%s: torch.cuda._sleep is missing; timed calls are queued behind the flush only" % HARNESS_NAME,
                  file=sys.stderr)
            return 0.0
        start, end = self.event(), self.event()
        self._sleep(1000)  # loads the spin kernel outside the measurement
        self._sync()
        stream = self.stream()
        self._record(start, stream)
        self._sleep(2_000_000)
        self._record(end, stream)
        self._sync()
        ms = self._elapsed(start, end)
        return 2_000_000 / ms if ms > 0 else 0.0

    def _calibrate_join(self):
        """What a join itself adds to an event time: start event, device-wide synchronize, end event,
        in the conditions of a joined call in a batch: queued behind a spin, so the host has waited
        (and may have slept) in the synchronize before it records the end event. A joined call reads
        about its kernel time plus this, so the escape bound adds it instead of guessing it. The
        largest of 9: a bound an honest kernel crosses by the host's wake-up alone is a false alarm
        (H200: a 18 us matmul read 92-99 us joined with the idle-GPU calibration)."""
        return max(self.join_samples(9))

    def join_samples(self, n):
        """`n` readings of what a join adds (spin 1 ms, start event, device-wide synchronize, end
        event), in ms; process_effect_probe.py --mode join reads their distribution."""
        stream = self.stream()
        start, end = self.event(), self.event()
        times = []
        for _ in range(n):
            self._sync()
            self.spin(1.0)
            self._record(start, stream)
            self._sync()
            self._record(end, stream)
            self._sync()
            times.append(self._elapsed(start, end))
        return times

    def synchronize(self):
        self._sync()

    def stream(self):
        return self._current_stream()

    def event(self):
        return self._event_cls(enable_timing=True)

    def record(self, event, stream):
        self._record(event, stream)

    def elapsed(self, start, end):
        return self._elapsed(start, end)

    def reached(self, event):
        """Whether the device has already executed `event` (a host query, about a microsecond).
        Asked right after a call's start event is recorded and before the call is launched: True
        means the device had run out of queued work, so the call's time includes the host's
        launch of it: the spin in front of the batch was too short."""
        return bool(self._query(event))

    def spin(self, ms):
        """Keep the GPU busy for about `ms` on the current stream, so that the launches the host makes
        meanwhile queue up behind it: each start event then executes with its call already queued.
        Returns the ms queued (0 without torch.cuda._sleep)."""
        self._calibrate()
        if self._cycles_per_ms > 0 and ms > 0:
            self._sleep(int(ms * self._cycles_per_ms))
            return ms
        return 0.0

    def idle_probe_us(self):
        """Host latency of one tiny kernel launched and synchronised alone: a few microseconds on an
        idle GPU, more when something else (another process) keeps it busy."""
        self._sync()
        h0 = _perf_counter()
        self._probe.add_(1)
        self._sync()
        return (_perf_counter() - h0) * 1e6

    def reset_persisting_l2(self):
        # Not stream-ordered: called before a batch is queued, with the device idle.
        if self._reset_l2 is not None:
            self._reset_l2()

    def set_stream(self, stream):
        self._set_stream(stream)

    def next_timing_stream(self, count=None):
        """The stream the next batch is queued and timed on: the first `count` (default all) of the
        worker's TIMING_STREAMS streams in turn. On the H200 a stream carries a fixed offset of its
        own, 50-270 ns per launch, 1-5 % of a small kernel, whatever the timing method; a worker
        that timed every batch on its one stream gave its arm that stream's offset, and two
        processes running the same build read 1-2 % apart on rms_1k_1k while each process's mean
        had an SE of 0.1-0.9 %. Taken in turn, the streams average their offsets into every arm
        (docs/gpu-validation.md, fourteenth and fifteenth sessions)."""
        streams = self._pool(count)
        stream = streams[self._timing_turn % len(streams)]
        self._timing_turn += 1
        return stream

    def _pool(self, count=None):
        """The first `count` (default all, at least one) of the worker's timing streams."""
        if self._timing_streams is None:
            self._timing_streams = [self._stream_cls(device=self.dev) for _ in range(TIMING_STREAMS)]
        pool = self._timing_streams
        return pool if count is None else pool[:max(1, min(count, len(pool)))]

    def total_memory(self):
        return self._total_memory

    def peak_start(self):
        """Starts a measurement of the most memory live at once (returns what is allocated now)."""
        self._reset_peak(self.dev)
        return self._memory_allocated(self.dev)

    def peak_since(self, start):
        """The most bytes allocated at once since peak_start() beyond what was allocated then: what a
        stream's allocator cache must hold for the work in between, whatever it had cached before."""
        return max(0, self._max_memory_allocated(self.dev) - start)

    def allocator_counts(self):
        """torch's caching allocator so far: (retries after a failed cudaMalloc, for which it freed
        its cached blocks and synchronized the device; cudaMalloc calls; cudaFree calls). Read
        around each batch: a batch in which they move ran with the allocator going to the driver
        between its queued calls (keys a torch lacks read 0)."""
        stats = self._memory_stats(self.dev)
        return tuple(int(stats.get(k, 0)) for k in ("num_alloc_retries", "num_device_alloc", "num_device_free"))

    def spread_first_use(self, nbytes, count=None):
        """Leaves a free block of `nbytes` (and a small one) in torch's allocator cache for each of
        the first `count` (default all) timing streams. The allocator keeps free blocks per stream,
        so a batch on a stream that has not yet run this shape would wait in cudaMalloc between its
        queued calls, long enough for the device to catch up with the host; a shape's first warm-up
        batch measures what one batch needs (`nbytes`, its peak live memory), and the streams are
        given as much, which their batches then split. At most a quarter of the free memory in all."""
        if nbytes <= 0:
            return
        pool = self._pool(count)
        nbytes = int(min(nbytes, STREAMS_OF_SHARE * self.memory_share() / len(pool)))
        outer = self.stream()
        try:
            for stream in pool:
                self._set_stream(stream)
                big = torch.empty(nbytes, dtype=torch.uint8, device=self.dev)
                small = torch.empty(4096, dtype=torch.uint8, device=self.dev)
                del big, small
        except RuntimeError:  # out of memory: the remaining streams allocate as they go
            pass
        finally:
            self._set_stream(outer)

    def free_memory(self):
        free, _total = torch.cuda.mem_get_info(self.dev)
        return free

    def memory_share(self):
        """What this worker's large allocations may hold together (memory_share): the device's free
        memory and the blocks torch's allocator keeps cached, unused, for this process (its own
        already), shared with the other workers on the device."""
        cached = torch.cuda.memory_reserved(self.dev) - torch.cuda.memory_allocated(self.dev)
        return memory_share(self.free_memory() + max(0, cached), self.workers)

    def cold(self):
        """Before a timed call (queued): evict the whole L2/LLC by reading the flush buffer. Reading
        leaves clean lines behind; overwriting it, as the harness did before, left the whole L2 dirty,
        and with the calls queued back to back that write-back ran inside the next timed call: 0.2 to
        10.8 us per call on the H200, 2-11 % of a small memory-bound kernel (docs/gpu-validation.md,
        ninth session). The reduction's 0-d result is kept until the next flush."""
        self._flush_read = self.flush_buf.max()

    def drain(self):
        """Read the drain buffer (drain_bytes: past the L2) on the current stream, behind a call or
        a null slot: it evicts, and writes back, what the L2 holds dirty. Every drain follows a
        flush that evicted the last one's lines, so each read misses in the L2 alike."""
        self._drain_read = self._drain_buf.max()

    def poison_allocator(self, specs):
        """Fill free caching-allocator blocks of the output sizes with NaN, so an output that the
        kernel never writes reads as NaN instead of a previous (maybe correct) result.
        `specs`: (shape, dtype) pairs, the expected outputs."""
        keep = []
        for shape, dtype in specs:
            for _ in range(2):
                try:
                    keep.append(torch.full(shape, float("nan"), dtype=dtype, device=self.dev))
                except (RuntimeError, TypeError):  # a dtype without NaN: fill with its largest value
                    keep.append(torch.full(shape, 1e30, dtype=torch.float32, device=self.dev).to(dtype))
        del keep


class _HostEvent:
    """CpuDevice's stand-in for a device event: the captured perf_counter at record()."""

    __slots__ = ("t",)

    def __init__(self):
        self.t = None


class CpuDevice:
    """`--device cpu`: the same measurement flow on CPU tensors, for testing the harness itself (and
    kernels' torch reference paths) where there is no GPU. Host timing with the captured
    perf_counter (every CPU call is synchronous, so there is no queue to get ahead of and no other
    stream to escape to); the cache flush is a 2x-LLC buffer; there is no persisting L2."""

    can_escape = False
    join_ms = 0.0
    timing_streams = 1  # every batch on the host: no streams, no per-stream allocator caches
    drains = False  # a CPU call writes its output through the caches as it runs: nothing to charge

    def __init__(self):
        if torch is None:
            raise HarnessError("torch is not importable; --device cpu still needs torch")
        self.dev = torch.device("cpu")
        self.name = _cpu_model()
        self.is_rocm, self.arch, self.l2 = False, "", 0
        self.flush_buf = torch.empty((64 << 20) // 4, dtype=torch.int32)
        self.workers = _workers_from_env()
        # What the harness's CPU tests inject here in the GPU runtime's place (a kernel module
        # reaches the device through gc): the counts allocator_counts reports (retries, cudaMalloc,
        # cudaFree), and seconds added to the next event recorded.
        self.fake_allocator = [0, 0, 0]
        self.fake_skew_s = 0.0

    def synchronize(self):
        pass

    def stream(self):
        return None

    def event(self):
        return _HostEvent()

    def record(self, event, stream):
        event.t = _perf_counter() + self.fake_skew_s
        self.fake_skew_s = 0.0

    def elapsed(self, start, end):
        return (end.t - start.t) * 1e3

    def reached(self, event):
        return False  # every CPU call is synchronous: there is no queue to run dry

    def spin(self, ms):
        return 0.0  # every CPU call is synchronous: nothing to get ahead of

    def idle_probe_us(self):
        return None

    def reset_persisting_l2(self):
        pass

    def set_stream(self, stream):
        pass

    def next_timing_stream(self, count=None):
        return None

    def total_memory(self):
        return 0

    def peak_start(self):
        return 0

    def peak_since(self, start):
        return 0

    def allocator_counts(self):
        return tuple(self.fake_allocator)

    def spread_first_use(self, nbytes, count=None):
        pass

    def cold(self):
        self.flush_buf.zero_()

    def free_memory(self):
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 1 << 30

    def memory_share(self):
        return memory_share(self.free_memory(), self.workers)

    poison_allocator = Device.poison_allocator


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


class _Precise:
    """Reference and verification matmuls in true fp32: a kernel module that turns TF32 on (for
    itself) must not also loosen the yardstick it is measured against."""

    def __enter__(self):
        m = torch.backends.cuda.matmul
        self.saved = (m.allow_tf32, getattr(m, "allow_fp16_reduced_precision_reduction", None))
        m.allow_tf32 = False
        if self.saved[1] is not None:
            m.allow_fp16_reduced_precision_reduction = False
        return self

    def __exit__(self, *exc):
        m = torch.backends.cuda.matmul
        m.allow_tf32 = self.saved[0]
        if self.saved[1] is not None:
            m.allow_fp16_reduced_precision_reduction = self.saved[1]
        return False


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _fingerprint(tensors, probe_gen):
    """A cheap content fingerprint of the inputs: a random projection of each tensor (fp32 products,
    fp64 sum). The same generator seed gives the same projection, so before == after unless the
    contents changed."""
    fp = []
    for t in tensors:
        if not torch.is_tensor(t) or t.numel() == 0:
            continue
        flat = t.detach().reshape(-1)
        w = torch.rand(flat.numel(), generator=probe_gen, device=t.device, dtype=torch.float32)
        fp.append(float((flat.float() * w).sum(dtype=torch.float64).item()))
    return fp


def dtype_of(tensors):
    for t in tensors:
        if torch.is_tensor(t) and t.is_floating_point():
            return t.dtype
    return torch.float32


def _fill_random_(t, gen):
    if t.dtype in (torch.float32, torch.float16, torch.bfloat16):
        t.normal_(generator=gen)
    elif t.is_floating_point():
        t.copy_(torch.randn(t.shape, generator=gen, device=t.device, dtype=torch.float32))
    # integer tensors (indices, offsets) keep their values: the op defines their meaning


def _torch_snr(ref, out):
    ref = ref.detach().double().reshape(-1)
    out = out.detach().double().reshape(-1)
    if not torch.isfinite(out).all():
        return float("nan")
    noise = float(((out - ref) ** 2).sum().item())
    signal = float((ref ** 2).sum().item())
    if noise == 0.0:
        return float("inf")
    if signal == 0.0:
        return float("-inf")
    return 10.0 * math.log10(signal / noise)


def _nonfinite(t):
    return int((~torch.isfinite(t.detach().float())).sum().item())


def _resolve_attr(module, dotted):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def load_kernel_module(spec, base_dir, repo_root=""):
    """Import KERNEL_MODULE: a path to a .py file (relative to the harness file, or to the config file
    with --config) or a module name. With REPO_ROOT the tree's own root goes first on sys.path, so
    the tree's packages win over installed ones (see check_imports_inside)."""
    if not spec:
        raise HarnessError("KERNEL_MODULE is empty: set it to the kernel's module name or .py path", 2)
    if repo_root and repo_root not in sys.path:
        sys.path.insert(0, repo_root)
    if spec.endswith(".py") or os.sep in spec:
        path = spec if os.path.isabs(spec) else os.path.join(base_dir, spec)
        if not os.path.isfile(path):
            path = os.path.abspath(spec)
        name = "kopt_kernel_" + os.path.splitext(os.path.basename(path))[0]
        mod_spec = importlib.util.spec_from_file_location(name, path)
        if mod_spec is None:
            raise ImportError("cannot load %s" % path)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = module
        sys.path.insert(0, os.path.dirname(path))
        mod_spec.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


def _inside(path, root):
    try:
        return os.path.commonpath([os.path.realpath(path), root]) == root
    except ValueError:  # different drives
        return False


def check_imports_inside(repo_root):
    """Every imported top-level module that this tree also holds (a package `X/` or a file `X.py` at
    its root) must have come from this tree. kopt measures two trees of one repository side by side
    (the candidate and the best build's worktree); an editable install (`pip install -e .`), a .pth
    file or PYTHONPATH pointing at one checkout would make the other tree import that checkout's
    code, so both arms would time the same kernel. Exit 2, naming the module and where it came from."""
    if not repo_root:
        return
    root = os.path.realpath(repo_root)
    for name, module in list(sys.modules.items()):
        if "." in name or module is None or name == "__main__":
            continue
        here = os.path.join(root, name)
        if not (os.path.isfile(os.path.join(here, "__init__.py")) or os.path.isfile(here + ".py")):
            continue
        origins = [getattr(module, "__file__", None)] + list(getattr(module, "__path__", []) or [])
        origins = [o for o in origins if o]
        if origins and not any(_inside(o, root) for o in origins):
            raise HarnessError(
                "module %r was imported from %s, not from this tree (%s): an editable install (pip install -e), "
                "a .pth file or PYTHONPATH points at another checkout, so this run would measure that "
                "checkout's code. Remove it (pip uninstall the package, or unset PYTHONPATH); the harness puts "
                "the tree's root first on sys.path itself (docs/byo-kernel.md, \"Python imports\")"
                % (name, origins[0], root), 2)


HOOKS = ("make_inputs", "reference_forward", "reference_backward", "bytes_moved")
HOOKS_TENSOR_HASHED = 1 << 20  # a module-level tensor the hooks read is hashed up to this many elements


def hooks_fingerprint(module, root=None):
    """sha256 of what the kernel module's harness hooks (HOOKS) are: which of them it defines and,
    for each, its code with everything that code reaches in the kernel's own files: the functions
    it calls there (recursively, decorators' wrapped functions included), the plain values it reads
    (EPS, a size table), the attributes it reads of a module of those files, its defaults and closure
    cells. The kernel's own files are the module's and every file under `root` (default: the
    module's directory). The hooks draw the inputs, compute the reference and count the bytes, so
    they define what is measured; they often live in the very file the agent edits (`kernel_source`),
    and kopt refuses a candidate whose hooks differ from the best's (docs/integrity.md, class 13).
    The kernel's own code (forward, backward, the Triton kernels, knobs only they read) is not part
    of it. Python's code objects, not source text: a comment or a blank line does not change it."""
    import hashlib

    mod_file = os.path.realpath(getattr(module, "__file__", "") or "")
    root = os.path.realpath(root or os.path.dirname(mod_file) or ".")
    parts, seen = [], set()

    def ours(path):
        path = os.path.realpath(path or "")
        return path == mod_file or path.startswith(root + os.sep)

    def value_text(v, depth=0):
        if depth > 8:
            return "..."
        if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
            return repr(v)
        if isinstance(v, (tuple, list, frozenset, set)):
            items = sorted(v, key=repr) if isinstance(v, (set, frozenset)) else v
            return "%s(%s)" % (type(v).__name__, ",".join(value_text(x, depth + 1) for x in items))
        if isinstance(v, dict):
            return "dict(%s)" % ",".join("%s:%s" % (value_text(k, depth + 1), value_text(x, depth + 1))
                                         for k, x in sorted(v.items(), key=lambda kv: repr(kv[0])))
        if isinstance(v, types.ModuleType):
            return "module " + v.__name__
        if isinstance(v, types.FunctionType) and ours(v.__code__.co_filename):
            visit_function(v)
            return "function %s.%s" % (v.__module__, v.__qualname__)
        if torch is not None and isinstance(v, torch.dtype):
            return repr(v)
        if torch is not None and isinstance(v, torch.Tensor):  # a constant table the hooks read
            head = "tensor %s %s" % (tuple(v.shape), v.dtype)
            if v.numel() > HOOKS_TENSOR_HASHED:
                return head + " (contents not hashed)"
            raw = v.detach().reshape(-1).cpu().contiguous().view(torch.uint8).numpy().tobytes()
            return head + " " + hashlib.sha256(raw).hexdigest()
        kind = "object %s.%s" % (type(v).__module__, type(v).__qualname__)
        if ours(getattr(sys.modules.get(type(v).__module__), "__file__", None)) and hasattr(v, "__dict__"):
            return "%s %s" % (kind, value_text(dict(vars(v)), depth + 1))
        return kind

    def code_text(code):
        consts = ",".join(code_text(c) if isinstance(c, types.CodeType) else value_text(c) for c in code.co_consts)
        return "code %s %s [%s] names %s" % (code.co_name, code.co_code.hex(), consts, ",".join(code.co_names))

    def names_of(code):
        out = list(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                out += names_of(c)
        return out

    def visit_function(fn):
        if id(fn) in seen:
            return
        seen.add(id(fn))
        parts.append("def %s.%s: %s defaults %s" % (fn.__module__, fn.__qualname__, code_text(fn.__code__),
                                                    value_text(tuple(fn.__defaults__ or ()))))
        for cell in fn.__closure__ or ():
            try:
                parts.append("cell " + value_text(cell.cell_contents))
            except ValueError:  # an empty cell
                parts.append("cell (empty)")
        g, names = fn.__globals__, sorted(set(names_of(fn.__code__)))
        for name in names:
            if name not in g:
                continue
            value = g[name]
            parts.append("global %s = %s" % (name, value_text(value)))
            if isinstance(value, types.ModuleType) and ours(getattr(value, "__file__", None)):
                # helpers.ref(x): the attribute names are among the code's names
                for attr in names:
                    if hasattr(value, attr):
                        parts.append("  %s.%s = %s" % (name, attr, value_text(getattr(value, attr))))

    for name in HOOKS:
        fn = getattr(module, name, None)
        if fn is None:
            parts.append("hook %s: none" % name)
        elif isinstance(fn, types.FunctionType):
            parts.append("hook %s:" % name)
            visit_function(fn)
        else:  # a callable object, a builtin: its type (and a repository object's fields) is what can be said
            parts.append("hook %s: %s" % (name, value_text(fn)))
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def op_hooks(op, cfg):
    """The loaded op's hooks_fingerprint, over the tree's files (REPO_ROOT) when the config names
    them; None when no kernel module loaded."""
    return hooks_fingerprint(op.module, cfg.get("REPO_ROOT") or None) if op is not None else None


def assert_hooks_intact(op, hooks, cfg, when):
    """The hooks kopt compares are the ones the run measured with: a kernel that rewrites its
    module's reference or input draw after the fingerprint was taken ends the run (exit 3)."""
    if hooks is not None and op_hooks(op, cfg) != hooks:
        raise TamperError("the kernel module's harness hooks (%s) changed %s: their code, a function they call "
                          "or a value they read was rebound or modified after the module was loaded. If the "
                          "kernel itself fills a module-level table the hooks read, keep the hooks' state apart "
                          "from the kernel's" % (", ".join(HOOKS), when))


# ----------------------------------------------------------------------------------------------
# Autotuned kernels: one config per tree, in every process of it. Two processes of one tree that
# each ran Triton's autotuner could pick different configs (their timings of the candidates are
# within noise of each other), and then kopt's A/A sessions, or a round's two workers, differed
# by the config rather than the code. So before the kernel module is imported the harness turns
# on Triton's on-disk autotune cache (TRITON_CACHE_AUTOTUNING=1) in a directory of this tree's
# own (TRITON_CACHE_DIR = <root>/<sha256 of the tree's .py files and the device name>), and the
# first use of each shape in a process holds a file lock (fcntl.flock) on that directory: the
# first process tunes and writes the cache, every later one waits, then reads the same choice.
# Triton's own cache key adds the kernel's source, the key's values and the configs, so two trees
# never share an entry and two processes of one tree always do. A module without an autotuner
# gets its environment back untouched right after the import, before anything compiles.

AUTOTUNE_CACHE_ENV = "KOPT_AUTOTUNE_CACHE_DIR"  # the root (kopt or the user sets it); "off" disables
AUTOTUNE_LOCK_WAIT_S = 900.0  # the longest a first use waits for another process's tuning
AUTOTUNE_TREE_FILES = 5000  # .py files hashed at most (a larger tree: the first ones, in path order)
_AUTOTUNE_ENV_KEYS = ("TRITON_CACHE_DIR", "TRITON_CACHE_AUTOTUNING")


def autotune_cache_root(environ=None):
    """KOPT_AUTOTUNE_CACHE_DIR, else $XDG_CACHE_HOME/kopt/triton-autotune (~/.cache/...); None when
    the variable says off (off, 0, none)."""
    env = os.environ if environ is None else environ
    value = env.get(AUTOTUNE_CACHE_ENV, "")
    if value.strip().lower() in ("off", "0", "none"):
        return None
    if value:
        return os.path.abspath(value)
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kopt", "triton-autotune")


def kernel_tree_root(cfg, base_dir):
    """The folder whose .py files are the kernel's: REPO_ROOT, else the kernel module's folder (a
    .py path), else the working directory (a module name: kopt runs commands in the tree)."""
    if cfg.get("REPO_ROOT"):
        return os.path.realpath(cfg["REPO_ROOT"])
    spec = cfg.get("KERNEL_MODULE") or ""
    if spec.endswith(".py") or os.sep in spec:
        path = spec if os.path.isabs(spec) else os.path.join(base_dir, spec)
        if not os.path.isfile(path):
            path = os.path.abspath(spec)
        return os.path.dirname(os.path.realpath(path))
    return os.path.realpath(os.getcwd())


def _skipped_dir(name):
    return name.startswith(".") or name in ("__pycache__", "node_modules") or name == "build" or name.startswith("build-")


def kernel_tree_files(root):
    """The tree's .py files, relative to `root`, sorted: in a git checkout the tracked ones and the
    untracked ones git does not ignore (what a commit of the tree would hold), else every one
    found; either way none under a hidden folder (.git, .kopt: a campaign's records), __pycache__,
    node_modules or a build folder."""
    import subprocess

    try:
        p = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                            "--", "*.py"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        names = [n for n in p.stdout.decode("utf-8", "surrogateescape").split("\0") if n] if p.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        names = None
    if names is None:
        names = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not _skipped_dir(d)]
            names += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames if f.endswith(".py")]
    names = [n.replace(os.sep, "/") for n in names]
    return sorted(set(n for n in names if not any(_skipped_dir(part) for part in n.split("/")[:-1])))


def kernel_tree_digest(root, extra=""):
    """-> (sha256 hex, files hashed): the path and contents of every file kernel_tree_files lists
    (at most AUTOTUNE_TREE_FILES, in path order), plus `extra` (the device's name)."""
    import hashlib

    h = hashlib.sha256(("kopt autotune tree 1\0%s\0" % extra).encode("utf-8", "surrogatepass"))
    n = 0
    for rel in kernel_tree_files(root)[:AUTOTUNE_TREE_FILES]:
        try:
            with open(os.path.join(root, rel), "rb") as f:
                data = f.read()
        except OSError:  # listed by git but deleted in the working tree
            continue
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0" + data)
        n += 1
    return h.hexdigest(), n


def autotune_text(config):
    """One line for an autotuner's config (Triton's Config prints 'TILE: 1024, num_warps: 8, ...')."""
    return one_line(str(config), 300)


@contextlib.contextmanager
def _tuning_lock(path, wait_s, poll_s=0.05, clock=None):
    """An exclusive flock on `path` for the block: yields (waited ms, held). `held` is False when
    another process kept it past `wait_s` (the block then runs unlocked) or the platform has no
    flock."""
    clock = clock or _perf_counter
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield 0.0, False
        return
    try:
        f = open(path, "a+")
    except OSError:  # the folder could not be made: run unlocked
        yield 0.0, False
        return
    t0, held = clock(), False
    try:
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
                break
            except BlockingIOError:
                if clock() - t0 >= wait_s:
                    break
                time.sleep(poll_s)
        yield (clock() - t0) * 1e3, held
    finally:
        if held:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
        f.close()


def _triton_autotuner_type():
    try:
        from triton.runtime.autotuner import Autotuner
        return Autotuner
    except Exception:
        return None


class AutotunePin:
    """The autotune cache of one process (see the section's comment). Inactive (every method a
    no-op) without Triton, with KOPT_AUTOTUNE_CACHE_DIR=off, or when the kernel has no autotuner."""

    def __init__(self, directory=None, note=""):
        self.dir = directory
        self.note = note
        self.tuners = []  # (name, Autotuner) found in the kernel's modules
        self.seen = set()  # shape labels whose first use is over in this process
        self.chosen = {}  # label -> {kernel name: config text}, what the shape's first use tuned or loaded
        self.saved_env = {}
        self.tree = None  # the folder of the kernel's files (kernel_tree_root)

    @property
    def active(self):
        return self.dir is not None

    @classmethod
    def before_import(cls, cfg, base_dir, device_name, environ=None, has_triton=None):
        """Points Triton's cache at this tree's directory (in `environ`, default os.environ) before
        the kernel module is imported, when Triton is installed and the root is not off."""
        env = os.environ if environ is None else environ
        root = autotune_cache_root(env)
        if root is None:
            return cls(note="%s=off" % AUTOTUNE_CACHE_ENV)
        if has_triton is None:
            has_triton = importlib.util.find_spec("triton") is not None
        if not has_triton:
            return cls(note="no triton")
        tree = kernel_tree_root(cfg, base_dir)
        digest, files = kernel_tree_digest(tree, device_name)
        directory = os.path.join(root, digest[:32])
        pin = cls(directory, "tree %s (%d .py files under %s)" % (digest[:12], files, tree))
        pin.tree = tree
        pin.saved_env = {k: env.get(k) for k in _AUTOTUNE_ENV_KEYS}
        env["TRITON_CACHE_DIR"] = directory
        env["TRITON_CACHE_AUTOTUNING"] = "1"
        return pin

    def attach(self, module, autotuner_type=None, environ=None):
        """After the import: finds every autotuner in the kernel module and in the modules it
        imported from the tree, turns on their disk cache (one decorated with cache_results=False
        too), and logs them. None found: the environment goes back as it was and the pin is off."""
        if not self.active:
            return self
        env = os.environ if environ is None else environ
        kind = autotuner_type or _triton_autotuner_type()
        modules = [module] + [m for m in list(sys.modules.values())
                              if self.tree and m is not module and isinstance(m, types.ModuleType)
                              and getattr(m, "__file__", None) and _inside(m.__file__, self.tree)]
        found, seen = [], set()
        for m in modules:
            for attr, value in sorted(vars(m).items()):
                if kind is not None and isinstance(value, kind) and id(value) not in seen:
                    seen.add(id(value))
                    base = getattr(getattr(value, "base_fn", None), "__name__", None) or attr
                    found.append((base if m is module else "%s.%s" % (m.__name__, base), value))
        if not found:
            for k, v in self.saved_env.items():
                if v is None:
                    env.pop(k, None)
                else:
                    env[k] = v
            self.dir, self.note = None, "no autotuner in the kernel module"
            return self
        try:
            os.makedirs(self.dir, exist_ok=True)
        except OSError as e:  # Triton then fails to write its cache too, and says so
            print("%s: autotune: cannot create %s (%s)" % (HARNESS_NAME, self.dir, e.strerror), file=sys.stderr)
        forced = []
        for name, t in found:
            if getattr(t, "cache_results", True) is False:
                t.cache_results = True
                forced.append(name)
        self.tuners = found
        print("%s: autotune: cache %s, %s; autotuned: %s%s" % (
            HARNESS_NAME, self.dir, self.note, ", ".join(n for n, _t in found),
            ("; disk cache turned on for %s (decorated with cache_results=False)" % ", ".join(forced)) if forced else ""),
            file=sys.stderr)
        return self

    @contextlib.contextmanager
    def first_use(self, label, wait_s=None):
        """The block that first runs the kernel on shape `label` in this process: it holds the
        tree's tuning lock, and what each autotuner tuned or loaded in it becomes the shape's
        config (chosen[label], logged on stderr). Later uses of the label run unlocked."""
        if not self.active or label in self.seen:
            yield
            return
        before = {name: dict(getattr(t, "cache", None) or {}) for name, t in self.tuners}
        wait = AUTOTUNE_LOCK_WAIT_S if wait_s is None else wait_s
        try:
            with _tuning_lock(os.path.join(self.dir, "kopt-tuning.lock"), wait) as (waited, held):
                yield
        finally:
            self.seen.add(label)
        chosen = {}
        for name, t in self.tuners:
            cache = getattr(t, "cache", None)
            if isinstance(cache, dict):
                new = [cache[k] for k in cache if k not in before[name] or before[name][k] is not cache[k]]
            else:
                new = [getattr(t, "best_config", None)]
            texts = []
            for c in new:
                if c is not None and autotune_text(c) not in texts:
                    texts.append(autotune_text(c))
            if texts:
                chosen[name] = " | ".join(texts)
        self.chosen[label] = chosen
        lock = ("waited %.0f ms for the tuning lock" % waited) if held else (
            "ran without the tuning lock (held elsewhere past %.0f s)" % wait)
        print("%s: autotune: %s: %s; %s" % (HARNESS_NAME, label, "; ".join("%s = %s" % kv for kv in chosen.items())
                                            or "no new autotuner entry", lock), file=sys.stderr)

    def reply_field(self, label):
        """The worker protocol's optional "autotune" of a shape's reply, or None."""
        return dict(self.chosen[label]) if self.chosen.get(label) else None


def op_autotune(op):
    """The op's AutotunePin (an inactive one for an op built without load_op)."""
    pin = getattr(op, "autotune", None)
    return pin if pin is not None else AutotunePin()


class Op:
    """What is measured for one shape: inputs, candidate calls, reference, per-call verification."""

    def __init__(self, cfg, module, device, dtype):
        self.cfg, self.module, self.device, self.dtype = cfg, module, device, dtype
        self.kind = cfg["KIND"]
        self.forward_fn = _resolve_attr(module, cfg["FORWARD"])
        if self.forward_fn is None:
            raise HarnessError("kernel module has no %r (FORWARD)" % cfg["FORWARD"], 2)
        bw = cfg["BACKWARD"]
        self.backward_fn = None
        self.has_backward = bool(bw)
        if bw and bw != "autograd":
            self.backward_fn = _resolve_attr(module, bw)
            if self.backward_fn is None:
                raise HarnessError("kernel module has no %r (BACKWARD); use \"autograd\" or \"\"" % bw, 2)
        if self.kind == "memory":
            for need in ("make_inputs", "reference_forward"):
                if not hasattr(module, need):
                    raise HarnessError("KIND = \"memory\" needs %s() in the kernel module" % need, 2)
        # FORWARD_SAVES = True in the kernel module: forward returns (outputs, saved) and backward
        # takes saved=, what a training forward keeps for its backward (RMSNorm's rstd); the
        # backward's forward runs untimed, before its call (harness/CONTRACT.md).
        self.forward_saves = getattr(module, "FORWARD_SAVES", False) is True

    # -- inputs
    def make_inputs(self, shape, gen):
        if hasattr(self.module, "make_inputs"):
            return _as_tuple(self.module.make_inputs(dict(shape), self.dtype, self.device.dev, gen))
        B, M, N, K = shape["B"], shape["M"], shape["N"], shape["K"]
        lead = () if B == 1 else (B,)
        a = torch.randn(lead + (M, K), generator=gen, device=self.device.dev, dtype=torch.float32).to(self.dtype)
        b = torch.randn(lead + (K, N), generator=gen, device=self.device.dev, dtype=torch.float32).to(self.dtype)
        return a, b

    def fill_inputs_(self, dsts, shape, gen):
        """New inputs into existing tensors (the ring's slots), drawn as make_inputs draws them: in
        place where that is the default GEMM draw (normal values of a float dtype), else copied
        from make_inputs (a module's own draw, fp8). In place saves an fp32 draw, a cast and a
        copy of every operand per slot: on the H200 a fifth of an 8k matmul batch's check work."""
        if (not hasattr(self.module, "make_inputs") and self.kind == "gemm"
                and all(t.dtype in (torch.float32, torch.float16, torch.bfloat16) for t in dsts)):
            for t in dsts:
                t.normal_(generator=gen)
            return
        for dst, src in zip(dsts, self.make_inputs(shape, gen)):
            dst.copy_(src)

    def grad_like(self, ref_outs, dtype, gen):
        """grad_out in the candidate's output dtype (the reference's outputs are fp32)."""
        return tuple(torch.randn(o.shape, generator=gen, device=o.device, dtype=torch.float32).to(dtype)
                     for o in ref_outs)

    # -- candidate
    def _forward_split(self, inputs):
        """-> (outputs as a tuple, what the forward saved for the backward; None without FORWARD_SAVES)."""
        result = self.forward_fn(*inputs)
        if not self.forward_saves:
            return _as_tuple(result), None
        if not (isinstance(result, tuple) and len(result) == 2):
            raise HarnessError("FORWARD_SAVES = True: %s must return (outputs, saved), got %s"
                               % (self.cfg["FORWARD"], type(result).__name__), 2)
        return _as_tuple(result[0]), result[1]

    def forward(self, inputs):
        return self._forward_split(inputs)[0]

    def prepare_backward(self, inputs, grads):
        """Returns a zero-argument callable that runs the timed part of the backward pass."""
        if self.backward_fn is not None:
            if self.forward_saves:
                saved = self._forward_split(inputs)[1]
                return lambda: _as_tuple(self.backward_fn(*inputs, *grads, saved=saved))
            return lambda: _as_tuple(self.backward_fn(*inputs, *grads))
        leaves = tuple(t.detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs)
        outs = self._forward_split(leaves)[0]

        def run():
            torch.autograd.backward(outs, grads)
            return tuple(t.grad for t in leaves if torch.is_tensor(t) and t.requires_grad)
        return run

    # -- reference (fp32, on independent clones)
    def reference_forward(self, inputs):
        with _Precise():
            return self._reference_forward(inputs)

    def reference_backward(self, inputs, grads):
        with _Precise():
            return self._reference_backward(inputs, grads)

    def _reference_forward(self, inputs):
        clones = tuple(t.detach().clone() for t in inputs)
        if self.kind == "gemm":
            a, b = clones
            return (torch.matmul(a.float(), b.float()),)
        return tuple(o.float() for o in _as_tuple(self.module.reference_forward(*clones)))

    def _reference_backward(self, inputs, grads):
        clones = tuple(t.detach().clone() for t in inputs)
        if self.kind == "gemm":
            a, b = (t.float() for t in clones)
            g = grads[0].float()
            return (torch.matmul(g, b.transpose(-1, -2)), torch.matmul(a.transpose(-1, -2), g))
        if hasattr(self.module, "reference_backward"):
            return tuple(x.float() for x in _as_tuple(self.module.reference_backward(*clones, *grads)))
        leaves = tuple(t.float().requires_grad_(True) if t.is_floating_point() else t for t in clones)
        outs = _as_tuple(self.module.reference_forward(*leaves))
        torch.autograd.backward(tuple(o.float() for o in outs), tuple(g.float() for g in grads))
        return tuple(t.grad for t in leaves if torch.is_tensor(t) and t.requires_grad)

    # -- work counts
    def flops(self, shape, direction):
        if self.kind != "gemm":
            return None
        base = 2.0 * shape["B"] * shape["M"] * shape["N"] * shape["K"]
        return base if direction == "forward" else 2.0 * base

    def bytes(self, shape, inputs, results, grads_out, direction):
        """Bytes one call moves: the module's own count, else every tensor read or written once
        (forward: inputs + outputs; backward: inputs + grad_out + the gradients it returns)."""
        if hasattr(self.module, "bytes_moved"):
            return float(self.module.bytes_moved(dict(shape), inputs, results, direction))
        size = lambda ts: sum(t.numel() * t.element_size() for t in ts if torch.is_tensor(t))  # noqa: E731
        return float(size(inputs) + size(grads_out) + size(results))

    # -- per-call verification (queued after the call's end event): one SNR tensor per output, and
    #    for memory-bound ops the chunk's max |out - ref| (a 0-dim float64 tensor; None for GEMMs)
    def verify(self, direction, inputs, grads_out, outs, gen, ref=None):
        with _Precise():
            if self.kind != "gemm":
                return _compare_rows(ref, outs)
            if direction == "forward":
                return self._verify_forward(inputs, outs, gen), None
            return self._verify_backward(inputs, grads_out, outs, gen), None

    def _verify_forward(self, inputs, outs, gen):
        a, b = (t.float() for t in inputs)
        c = outs[0].float()
        x = torch.randint(0, 2, (b.shape[-1], 1), generator=gen, device=c.device).float() * 2 - 1
        return [_snr_rows(torch.matmul(a, torch.matmul(b, x)), torch.matmul(c, x))]

    def _verify_backward(self, inputs, grads_out, grads, gen):
        a, b = (t.float() for t in inputs)
        g = grads_out[0].float()
        da, db = (t.float() for t in grads[:2])
        x = torch.randint(0, 2, (a.shape[-1], 1), generator=gen, device=a.device).float() * 2 - 1
        y = torch.randint(0, 2, (b.shape[-1], 1), generator=gen, device=a.device).float() * 2 - 1
        s_a = _snr_rows(torch.matmul(g, torch.matmul(b.transpose(-1, -2), x)), torch.matmul(da, x))
        s_b = _snr_rows(torch.matmul(a.transpose(-1, -2), torch.matmul(g, y)), torch.matmul(db, y))
        return [s_a, s_b]


def _compare(check_class, refs, outs):
    """Full check of one direction: per-output SNRs, allclose, NaN/Inf count, max abs error."""
    spec = CHECKS[check_class]
    snrs, ok, nonfinite, max_err = [], True, 0, 0.0
    for r, o in zip(refs, outs):
        if o is None or tuple(o.shape) != tuple(r.shape):
            raise RuntimeError("output shape %s differs from the reference %s"
                               % (None if o is None else tuple(o.shape), tuple(r.shape)))
        nonfinite += _nonfinite(o)
        snrs.append(_torch_snr(r, o))
        of = o.detach().float()
        if spec["kind"] == "allclose":
            ok = ok and bool(torch.allclose(of, r.float(), rtol=spec["tol"], atol=spec["tol"]))
        if nonfinite == 0:
            max_err = max(max_err, float((of - r.float()).abs().max().item()) if of.numel() else 0.0)
    if nonfinite:
        max_err = float("nan")
    return snrs, ok, nonfinite, max_err


def _worse(a, b):
    """The lower of two SNRs, NaN (a non-finite output) counting as the lowest."""
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    return min(a, b)


def _label_seed(seed, label):
    h = 0xcbf29ce484222325
    for ch in label.encode():
        h = ((h ^ ch) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return (seed * 0x9E3779B97F4A7C15 ^ h) & 0x7FFFFFFFFFFFFFFF


# Device-side verification: every function below only queues work and returns tensors, so a batch
# of calls is verified without a host synchronisation; the batch reads the results once at its end.
# They work on stacks of calls (a leading dimension of n calls): queuing a check costs the host
# 10-20 us per torch op, and checking each call on its own took 1.5-5 ms of host time per call on
# the H200 (docs/gpu-validation.md), which capped a 20 ms batch of an 18 us matmul at 3 calls.

_ARITHMETIC_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64) if torch is not None else ()


def _diff_rows(ref, out):
    """Per call (leading dimension, then flattened): out - ref in float32 (float64 where either is),
    the reference as at least float32, and whether the call's difference is finite everywhere.
    The subtraction widens a bf16/fp16 output as it reads it: no widened copy of either tensor is
    written. On a memory-bound op these checks move many times the kernel's bytes for every timed
    call (a 16k x 4k RMSNorm backward: about 270 bytes an element, the kernel 8), so their device
    time, not the kernel's, sets how many calls a batch holds."""
    n = out.shape[0]
    r = ref.detach().reshape(n, -1)
    o = out.detach().reshape(n, -1)
    if r.dtype not in (torch.float32, torch.float64):
        r = r.float()
    if o.dtype not in _ARITHMETIC_FLOATS:  # fp8 and integers have no arithmetic of their own
        o = o.float()
    d = o - r
    return d, r, torch.isfinite(d).all(dim=1)


def _snr_from_diff(d, r, finite):
    """Per call: 10 log10(sum r^2 / sum d^2), squares summed in float64: inf when exact, nan when
    the difference holds NaN/Inf (a non-finite output, or reference), -inf when the reference is
    all zero but the output is not."""
    noise = d.square().sum(dim=1, dtype=torch.float64)
    signal = r.square().sum(dim=1, dtype=torch.float64)
    snr = torch.where(noise == 0, torch.full_like(noise, float("inf")), 10.0 * torch.log10(signal / noise))
    return torch.where(finite, snr, torch.full_like(snr, float("nan")))


def _snr_rows(ref, out):
    """Per call (leading dimension) _torch_snr as float64 (see _snr_from_diff)."""
    return _snr_from_diff(*_diff_rows(ref, out))


def _compare_rows(refs, outs):
    """A memory-bound op's per-call check of stacked outputs against their references: per output
    the per-call SNRs, and max |out - ref| over all of them as a 0-dim float64 tensor (NaN once any
    difference is non-finite; None when every output is empty), both from one difference per output."""
    snrs, err = [], None
    for r, o in zip(refs, outs):
        d, rf, finite = _diff_rows(r, o)
        snrs.append(_snr_from_diff(d, rf, finite))
        if d.numel():
            e = torch.linalg.vector_norm(d, float("inf")).double()
            e = torch.where(finite.all(), e, torch.full_like(e, float("nan")))
            err = e if err is None else torch.maximum(err, e)
    return snrs, err


UNWRITTEN_SAMPLES = 512  # positions of a larger output that the unwritten-output check reads


def _unwritten_picks(specs, seed, device):
    """Per expected output (shape, dtype), the positions the unwritten-output check reads: None
    (all of it) for an output of at most UNWRITTEN_SAMPLES elements, else that many drawn from a
    fresh secret seed per batch. Reading all of a large output would evict the dirty lines that the
    drain behind the call must write back inside its time; a call still writing a fraction f of
    its output on another stream passes 512 random reads with probability (1 - f) ** 512."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    picks = []
    for shape, _dtype in specs:
        n = math.prod(shape)
        picks.append(None if n <= UNWRITTEN_SAMPLES else
                     torch.randint(0, n, (UNWRITTEN_SAMPLES,), generator=gen, device=device))
    return picks


def _unwritten_snapshot(outs, picks=None):
    """Copies of what each output holds right behind the call's end event, queued on the timed
    stream: the positions `picks` (_unwritten_picks) gives, or all of a small output. Compared with
    the same positions once the call's checks run (_unwritten_flag), long after: an output that
    still held its NaN poison, or that changed after its end event, was being written by work left
    on another stream. The comparison, not the poison alone, is what catches that: a kernel that
    allocates its output on a stream of its own gets a block from that stream's pool, which the
    harness never poisoned, holding a finite earlier result (the side-stream exploit passed mm_1k
    that way once the drain left its work time to finish before the per-call check read it:
    docs/gpu-validation.md, nineteenth session). None when no output is a tensor."""
    snap = []
    for k, o in enumerate(outs):
        if not (torch.is_tensor(o) and o.numel()):
            snap.append(None)
            continue
        t = o.detach()
        pick = picks[k] if picks and k < len(picks) else None
        if pick is not None and t.is_contiguous() and t.numel() > pick.numel():
            snap.append(t.view(-1).index_select(0, pick))
        else:
            snap.append(t.clone())
    return snap if any(x is not None for x in snap) else None


def _unwritten_flag(snap, outs, picks=None):
    """A 0-dim float64 tensor, NaN when an output's snapshot (_unwritten_snapshot) held a non-finite
    value (the poison: never written by the end event) or differs, byte for byte, from what the
    output holds now (written after the end event); 0 otherwise. Queued with the call's checks."""
    bad = None
    for k, (before, o) in enumerate(zip(snap, outs)):
        if before is None or not torch.is_tensor(o):
            continue
        now = _unwritten_snapshot([o], [picks[k] if picks and k < len(picks) else None])[0]
        if now is None or now.shape != before.shape or now.dtype != before.dtype:
            changed = torch.ones((), dtype=torch.bool, device=before.device)
        else:
            changed = (_bytes_of(before) != _bytes_of(now)).any()
        if before.is_floating_point():
            changed = changed | ~torch.isfinite(before.float()).all()
        bad = changed if bad is None else bad | changed
    if bad is None:
        return None
    zero = torch.zeros((), dtype=torch.float64, device=bad.device)
    return torch.where(bad, zero + float("nan"), zero)


UNWRITTEN_STACK_ELEMENTS = 4 * UNWRITTEN_SAMPLES  # snapshots up to this size are compared a chunk at a time


def _unwritten_flags(pairs, picks=None):
    """_unwritten_flag for each (snapshot, outputs) pair of a chunk's calls, as one float64 tensor
    of len(pairs) (NaN: that call's output was unwritten or changed after its end event), or None
    when no output was snapshotted. The chunk's snapshots are compared stacked: one queued device
    op a call (the read of what its output holds now) and about ten a chunk, instead of eleven a
    call (bench/harness_host_calls.py). A call whose output changed shape or dtype after it
    returned, or a snapshot larger than UNWRITTEN_STACK_ELEMENTS (a whole non-contiguous output),
    sends the chunk through the per-call comparison."""
    if not pairs:
        return None
    n_out = max(len(snap) for snap, _outs in pairs)
    per_output = []
    for k in range(n_out):
        pick = picks[k] if picks and k < len(picks) else None
        befores = [snap[k] if k < len(snap) else None for snap, _outs in pairs]
        if all(b is None for b in befores):
            continue
        nows = [_unwritten_snapshot([outs[k]], [pick])[0] if b is not None and k < len(outs) and torch.is_tensor(outs[k])
                else None for b, (_snap, outs) in zip(befores, pairs)]
        first = befores[0]
        if not all(b is not None and x is not None and b.shape == first.shape and x.shape == first.shape and
                   b.dtype == first.dtype and x.dtype == first.dtype for b, x in zip(befores, nows)) or \
                first.numel() > UNWRITTEN_STACK_ELEMENTS:
            device = next(b for b in befores if b is not None).device
            return torch.stack([_unwritten_flag(snap, outs, picks) if _unwritten_flag_any(snap, outs)
                                else torch.zeros((), dtype=torch.float64, device=device) for snap, outs in pairs])
        before = torch.stack([_bytes_of(b) for b in befores])
        changed = (before != torch.stack([_bytes_of(x) for x in nows])).any(dim=1)
        if first.is_floating_point():
            changed = changed | ~torch.isfinite(torch.stack(befores).float().reshape(len(pairs), -1)).all(dim=1)
        per_output.append(changed)
    if not per_output:
        return None
    bad = per_output[0]
    for changed in per_output[1:]:
        bad = bad | changed
    zero = torch.zeros(bad.shape, dtype=torch.float64, device=bad.device)
    return torch.where(bad, zero + float("nan"), zero)


def _unwritten_flag_any(snap, outs):
    """Whether _unwritten_flag judges anything of this call (a snapshotted tensor output)."""
    return any(b is not None and torch.is_tensor(o) for b, o in zip(snap, outs))


def _bytes_of(t):
    """The tensor's bytes (contiguous), for an exact comparison that NaN cannot fool."""
    return t.contiguous().view(-1).view(torch.uint8)


def _words(t):
    """The tensor's bytes, exactly, as a flat integer tensor of the widest word its size allows:
    int64 (one multiply-add per 8 bytes: the fingerprints of a 128 MB operand read it once instead
    of widening every 16-bit word to 32 bits), else int32, int16 or uint8."""
    t = t.detach()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    flat = t.contiguous().reshape(-1)
    if flat.element_size() > 1:
        flat = flat.view(torch.uint8)
    nbytes = flat.numel()
    for dtype, size in ((torch.int64, 8), (torch.int32, 4), (torch.int16, 2)):
        if nbytes % size == 0:
            try:
                return flat.view(dtype)
            except RuntimeError:  # a storage offset not aligned to the word
                continue
    return flat


class _Fingerprinter:
    """Exact content fingerprints of ring slots under one secret key (one per batch): per tensor the
    sum, modulo 2^64, of its words times secret odd 64-bit weights. A change of one word always
    changes the sum (an odd weight is invertible modulo 2^64), and changes that cancel need the
    weights. Wrapping integer sums do not depend on the order of the reduction, so a fingerprint
    taken over 200 slots at once equals one over 3 of them (a float sum could differ in its last
    bits between the two and fail an honest kernel). The weights are drawn once per key and
    tensor, not per call: drawing them was as much device work as the fingerprint itself."""

    def __init__(self, seed, budget_bytes, words_of=None):
        """`words_of(slot)`: the slot's tensors as _words views made once when the ring was built
        (None per non-tensor or empty one; _RingWords), or None for a slot it does not know. Taking
        them again per fingerprint was about 75 of the 170-225 torch calls a timed call cost the
        host (counted on the CPU, bench/harness_host_calls.py)."""
        self.seed, self.budget = seed, budget_bytes
        self.words_of = words_of
        self._weights = {}

    def _weights_for(self, j, words):
        key = (j, words.numel(), words.device)
        w = self._weights.get(key)
        if w is None:
            gen = torch.Generator(device=words.device)
            gen.manual_seed((self.seed + j) % _U64)
            w = torch.randint(-(1 << 63), (1 << 63) - 1, (words.numel(),), generator=gen, device=words.device,
                              dtype=torch.int64) | 1
            self._weights[key] = w
        return w

    def rows(self, slots, count=None):
        """(n slots, tensors) int64 over each slot's first `count` tensors (None: all of them), or
        None without slots."""
        if not slots:
            return None
        known = [self.words_of(sl, count) if self.words_of else None for sl in slots]
        cols = []
        for j, proto in enumerate(slots[0][:count]):
            if known[0] is not None:
                if known[0][j] is None:
                    continue
            elif not (torch.is_tensor(proto) and proto.numel()):
                continue
            words = [k[j] if k is not None else _words(sl[j]) for k, sl in zip(known, slots)]
            w = self._weights_for(j, words[0])
            per = max(1, self.budget // (w.numel() * 8 * 2))  # the stacked words and their products
            parts = []
            for s in range(0, len(slots), per):
                group = words[s:s + per]
                stacked = group[0].unsqueeze(0) if len(group) == 1 else torch.stack(group)
                if stacked.dtype != torch.int64:
                    stacked = stacked.to(torch.int64)
                parts.append((stacked * w).sum(dim=1))  # wraps modulo 2^64, in any order
            cols.append(torch.cat(parts) if len(parts) > 1 else parts[0])
        return torch.stack(cols, dim=1) if cols else None


class _RingWords:
    """Each ring slot's tensors as _words views, made once when the ring is built: views, so they
    follow the contents every refill writes. A view is used only while its tensor still has the
    storage, shape and strides it was made from: a kernel that re-points an input (`x.set_(...)`)
    must not leave its fingerprints reading the old storage, so such a tensor's words are taken
    again, as the uncached path does."""

    def __init__(self, ring):
        self._slots = {}
        for slot in ring:
            self._slots[id(slot)] = [
                (_words(t), t.data_ptr(), tuple(t.shape), t.stride()) if torch.is_tensor(t) and t.numel() else None
                for t in slot]

    def of(self, slot, count=None):
        """The words of the slot's first `count` tensors (None: all; None for a non-tensor or empty
        one), or None for a slot not of this ring."""
        made = self._slots.get(id(slot))
        if made is None:
            return None
        out = []
        for t, m in zip(slot[:count], made):
            if m is None:
                out.append(None)
            elif t.data_ptr() == m[1] and tuple(t.shape) == m[2] and t.stride() == m[3]:
                out.append(m[0])
            else:
                out.append(_words(t) if torch.is_tensor(t) and t.numel() else None)
        return out


def _cat_rows(rows):
    """The fingerprint rows of single slots (each (1, tensors) or None) as one (slots, tensors) tensor."""
    rows = [r for r in rows if r is not None]
    if not rows:
        return None
    return rows[0] if len(rows) == 1 else torch.cat(rows)


def _stack_calls(ts):
    """The calls' tensors along a new leading dimension; one call's as a view (a 128 MB operand of
    a chunk of one would be copied for nothing)."""
    ts = [t.detach() for t in ts]
    return ts[0].unsqueeze(0) if len(ts) == 1 else torch.stack(ts)


SPIN_FLOOR_MS = 0.2  # the least spin in front of a batch
SPIN_CAP_MS = 1000.0  # a batch longer than this to queue loses its head start for the rest
SPIN_MARGIN = 1.25  # spin this much longer than the host is expected to take to queue the calls


class BatchTime:
    """Where the kept batches' host wall time went, summed over a shape's batches (both
    directions), for one stderr line when kopt asks for the row: a validated round's time is mostly
    its batches' fixed costs, not its timed calls (docs/gpu-validation.md, thirteenth session)."""

    def __init__(self):
        self.batches, self.wall, self.spin, self.queue, self.checks, self.drain = 0, 0.0, 0.0, 0.0, 0.0, 0.0
        self.slot_ms = []  # device time from one queued call's start event to the next one's
        self.starved = 0  # calls the device reached before the host had launched them
        self.allocator = (0, 0, 0)  # torch's allocator: retries, cudaMalloc and cudaFree calls
        self.charge_ms = []  # per queued call: the write-back its time was charged (Device.drain)

    def add(self, wall_ms, spin_ms, queue_ms, checks_ms, drain_ms, slot_ms=(), starved=0, allocator=(0, 0, 0),
            charge_ms=()):
        self.batches += 1
        self.charge_ms.extend(charge_ms)
        self.starved += starved
        self.allocator = tuple(a + b for a, b in zip(self.allocator, allocator))
        self.wall += wall_ms
        self.spin += spin_ms
        self.queue += queue_ms
        self.checks += checks_ms
        self.drain += drain_ms
        self.slot_ms.extend(slot_ms)

    def parts(self):
        """(name, ms) pairs for _log_times: the spins asked for (device time the host does not wait
        on), the host queueing calls and queueing checks, the wait for the device to finish, and
        the median device time of one call's slot (the call, its share of the checks, the next
        refill and flush): next to the host's queueing time per call, it says whether a batch is
        bound by the host, by the checks' device work or by the spins. Where the device drains,
        the median write-back charged to a call (Device.drain) ends the list."""
        rest = self.wall - self.queue - self.checks - self.drain
        slot = [("device per call slot (median of %d)" % len(self.slot_ms), median(self.slot_ms))] if self.slot_ms else []
        if self.charge_ms:
            slot.append(("write-back charged per call (median)", median(self.charge_ms)))
        return [("%d batches" % self.batches, self.wall), ("spins asked", self.spin), ("queueing calls", self.queue),
                ("queueing checks", self.checks), ("waiting on the device", self.drain),
                ("joined calls, confirmations and the results read", rest)] + slot

    def counts(self):
        """What the split line adds after its times: the calls the device waited for (their times
        include the host's launch; 0 when every spin was long enough), and what torch's allocator
        asked of the driver inside the batches (0 when every batch found its memory cached)."""
        return ("calls the device reached before their launch %d, allocator retries %d, cudaMalloc %d, cudaFree %d"
                % ((self.starved,) + self.allocator))


def slot_floor_ms(slot_ms, starved):
    """A lower bound of the device's work per call slot from one batch's slots (ms), or None: a slot
    is the device's work only where the device never waited for the host, so one call it reached
    before its launch (`starved`) and the slots bound nothing; the next spin is then sized from the
    kernel alone, as before slots were measured."""
    return 0.9 * min(slot_ms) if slot_ms and not starved else None


def host_ms_per_call(call_s, check_s, calls):
    """The host's time to queue one call, which sizes the next batch's spin: the median call plus
    the median chunk check spread over the batch's calls. Medians, not sums: when the device's
    launch queue fills behind the spin, the host waits out the rest of the spin inside one call (or
    one check), and a total that counted that wait would size the next spin longer still, 1.25x per
    batch up to the cap. On the H200 that loop stretched a Triton softmax's 40 ms batches of 78-99
    calls to 8-13 s (docs/gpu-validation.md, seventh session)."""
    if not call_s:
        return 0.5
    spread = median(check_s) * len(check_s) / max(1, calls) if check_s else 0.0
    return (median(call_s) + spread) * 1e3
def null_slots(calls):
    """Null slots in a batch of `calls` queued calls (ShapeBench._null_slot): two, and one more for
    every four calls, so the median that every call's write-back charge is measured against is
    neither one slot's noise nor a large part of the batch's device time (a null slot is a flush
    and a drain: about 0.1 ms on an H100, against call slots of 1.6-7.5 ms)."""
    return 2 + calls // 4


# A joined call this far above the queued median (plus the join's own measured cost, Device.join_ms,
# plus a slack) escaped. The slack is the host's wake-up after a long synchronize, which the
# calibration does not capture reliably: on the H200 honest 6-40 us kernels read 94-171 us joined
# (docs/gpu-validation.md). Escapes shorter than the slack are left to the unwritten-output check.
ESCAPE_RATIO, ESCAPE_SLACK_MS = 1.5, 0.25
# A batch the harness's own evidence says was disturbed is discarded and run again, on the same
# timing stream, at most BATCH_RERUNS times: torch's allocator went to the driver between its
# queued calls (a cudaMalloc or cudaFree holds the host, a retry also frees the cache and
# synchronizes the device, so a joined call that meets one reads the stall as escaped work: an
# honest RMSNorm backward read 0.98 ms joined against a queued median of 0.43 ms on an H100 whose
# memory the A/A's workers had filled), or a timed call read no positive finite time. Never because
# its times look slow. A discarded batch's times and escape verdicts do not count; its failed
# checks do. One more disturbed attempt fails the shape, naming the causes (spoiled_cause).
BATCH_RERUNS = 2
CLI_BATCH = 16  # CLI mode: queued calls per batch
WARMUP_BATCH = 8
WARMUP_FILL_MS = 40.0  # the third warm-up batch's target length
VERIFY_CHUNK = 32  # timed calls checked together (stacked): the checks' host cost is paid per chunk
# Before a batch the GPU must be idle. kopt stops the other arm's worker between requests, but work
# that worker queued before its stop still runs (work launched after its batch's last synchronize,
# say) and would slow this batch. A tiny probe kernel's launch-to-sync latency reads how busy the GPU
# is: on H100s an honest pair's batches read medians of 40-85 us and at most 230 us in 3,200 batches
# (docs/gpu-validation.md, twenty-second session); another context's kernel holds the probe for its
# time slice. Above the bound the worker probes again until the GPU reads idle, at most the cap; a
# reading above the bound from a host hiccup costs one more probe, not a refusal.
IDLE_PROBE_BOUND_US = 500.0
IDLE_WAIT_CAP_MS = 2000.0
VERIFY_BUDGET_BYTES = 1 << 30  # the most temporary device memory one stacked check may take


class SpoiledBatch(RuntimeError):
    """A batch disturbed in each of its 1 + BATCH_RERUNS attempts: the shape fails, the causes named."""


def spoiled_cause(allocator, times):
    """Why a batch cannot be timed, on the harness's own evidence, or "": `allocator`, what
    torch's caching allocator did during it (retries, cudaMalloc calls, cudaFree calls; Device.
    allocator_counts), and `times`, every timed call of it (queued, joined and confirmations), in
    ms. Nothing here reads whether the calls were fast or slow."""
    if any(allocator):
        return ("the allocator went to the driver inside it (retries %d, cudaMalloc %d, cudaFree %d)"
                % tuple(allocator))
    bad = [t for t in times if not (t > 0 and math.isfinite(t))]
    if bad:
        return "a timed call read %s ms" % fmt(bad[0])
    return ""


def wait_until_idle(probe, bound_us=IDLE_PROBE_BOUND_US, cap_ms=IDLE_WAIT_CAP_MS, clock=None):
    """Probes (probe() -> microseconds, or None where there is no device queue) until one reads at
    most `bound_us`, or `cap_ms` have passed. Returns (the last reading, the probes taken, the ms
    spent past the first probe, whether the GPU read idle)."""
    clock = clock or _perf_counter
    last = probe()
    if last is None:
        return None, 1, 0.0, True
    t0, probes = clock(), 1
    while last > bound_us:
        if (clock() - t0) * 1e3 >= cap_ms:
            return last, probes, (clock() - t0) * 1e3, False
        last = probe()
        probes += 1
    return last, probes, (clock() - t0) * 1e3 if probes > 1 else 0.0, True


class _BatchAcc:
    """What one batch accumulates: device tensors read once at its end, and what the host saw."""

    def __init__(self, n_calls):
        self.host_fail = [False] * n_calls  # failures the host sees itself (shapes, streams, escapes)
        self.snapshots = {}  # call -> its outputs' sampled copies right behind its end event (_unwritten_snapshot)
        self.unwritten = []  # per checked chunk: ([calls], _unwritten_flags of them), queued with the checks
        self.picks = None  # the positions of each output the snapshots copy (_unwritten_picks)
        self.chunks = []  # per checked chunk: ([(call, slot position)], first position, [device tensors])
        self.worst = None  # per output: the lowest per-call SNR (0-dim device tensors)
        self.max_err = None  # memory-bound ops: the largest per-call max |out - ref| (0-dim device tensor)
        self.starved = set()  # calls whose start event the device had run before the call was launched
        self.escaped = set()  # joined calls the escape check failed (not when the batch is run again)
        self.notes = {}

    def note(self, key, text):
        self.notes.setdefault(key, text)


class ShapeBench:
    """One shape of one op: the full correctness check, a ring of input sets, queued timed batches
    verified on the device, and everything measured since the check (the CSV row).

    Timing of a batch (GPU): synchronise, probe the GPU's idle latency, then queue a spin (the host
    runs ahead of the GPU) and per call: new inputs into its ring slot (GPU RNG; written only now,
    so no earlier call can compute ahead on them), their fingerprint, reference (memory-bound ops),
    NaN-poison, flush, start event, the call, end event, the unwritten-output check (sampled), a
    timed drain that writes back what the call left dirty in the L2 (its time less the batch's
    median null-slot drain is added to the call's), and the projection/reference check, all on the
    timed stream and without a host synchronisation; one synchronisation ends the batch and every
    event and counter is read then. A few calls of each batch, at secret positions, are extra
    "joined" calls whose end event is recorded after a device-wide synchronize: work the kernel
    left on another stream is inside their time, so a joined time far above the queued median
    means work escaped the timed stream."""

    def __init__(self, op, shape, seed, check_class):
        self.op, self.shape, self.check_class = op, shape, check_class
        self.dev = dev = op.device
        self.spec = CHECKS[check_class]
        base = _label_seed(seed, shape["label"])
        self.gen = torch.Generator(device=dev.dev)
        self.gen.manual_seed(base)
        # The harness's own secrets (joined calls' positions, the warm-up's length): from the
        # system, not the seed the kernel can read (referee hole 8). The inputs stay the seed's.
        self.rng = random.Random(_fresh_seed())
        self.directions = ["forward"] + (["backward"] if op.has_backward else [])
        self.times = {d: [] for d in self.directions}
        self.flops = {d: op.flops(shape, d) for d in self.directions}
        self.nbytes = {d: None for d in self.directions}
        self.host_ms = {}  # direction -> host ms to queue one call: sizes the next batch's spin
        self.batch_time = BatchTime()  # where the kept batches' wall time went, logged with the row
        self.device_floor_ms = {}  # direction -> at most the device time of one call (its kernel's least time)
        self.slot_floor_ms = {}  # direction -> at most the device time of one call's slot (checks included)
        # The timing streams this shape takes in turn, and the most memory one of its batches has
        # had live at once (set by the warm-up: timing_streams_within).
        self.timing_streams = dev.timing_streams
        self.stream_need = 0
        self.errors = 0  # timed calls (warm-up batches included) that failed verification
        self.failed = ""  # a call raised after the check: the shape is FAIL
        self.worst = {d: [] for d in self.directions}
        self.max_err = 0.0
        self.ring = None
        self.ring_words = _RingWords([])  # the ring's slots as fingerprint words (_build_ring)
        self._events = []
        # A null slot's stand-in output and the positions its snapshot reads (_null_slot): twice
        # the samples, so the snapshot is a gather of UNWRITTEN_SAMPLES as behind a large output.
        self._null_out = torch.zeros(2 * UNWRITTEN_SAMPLES, dtype=torch.float32, device=dev.dev)
        self._null_pick = torch.arange(0, 2 * UNWRITTEN_SAMPLES, 2, device=dev.dev)
        self.problems = []
        self.sizing_notes = []  # the warm-up's sizing batches, for the prepare's log line
        with op_autotune(op).first_use(shape["label"]):
            self.passed = self._full_check()

    # -- the full check: private copies, the reference on its own clones, computed first and kept
    #    alive so its memory cannot be handed to the candidate's outputs
    def _full_check(self):
        op, dev, gen, check_class = self.op, self.dev, self.gen, self.check_class
        inputs = op.make_inputs(self.shape, gen)
        ref_out = op.reference_forward(inputs)
        cand_in = tuple(t.detach().clone() for t in inputs)
        fp_before = _fingerprint(cand_in, torch.Generator(device=dev.dev).manual_seed(1))
        out_specs = [(tuple(r.shape), d) for r in ref_out for d in (dtype_of(inputs), torch.float32)]
        dev.poison_allocator(out_specs)
        outs = op.forward(cand_in)
        dev.synchronize()
        f_snrs, f_ok, f_bad, f_err = _compare(check_class, ref_out, outs)
        intact = _fingerprint(cand_in, torch.Generator(device=dev.dev).manual_seed(1)) == fp_before
        b_snrs, b_ok, b_bad, b_err = [], True, 0, 0.0
        grads_out = op.grad_like(ref_out, outs[0].dtype if outs else dtype_of(inputs), gen) if op.has_backward else ()
        grads = ()
        if op.has_backward:
            ref_grads = op.reference_backward(inputs, grads_out)
            cand_in = tuple(t.detach().clone() for t in inputs)
            cand_g = tuple(g.detach().clone() for g in grads_out)
            fp_before = _fingerprint(cand_in + cand_g, torch.Generator(device=dev.dev).manual_seed(2))
            grad_specs = [(tuple(r.shape), d) for r in ref_grads for d in (dtype_of(inputs), torch.float32)]
            dev.poison_allocator(grad_specs)
            grads = op.prepare_backward(cand_in, cand_g)()
            dev.synchronize()
            b_snrs, b_ok, b_bad, b_err = _compare(check_class, ref_grads, grads)
            intact = intact and _fingerprint(cand_in + cand_g, torch.Generator(device=dev.dev).manual_seed(2)) == fp_before
        # timed calls poison, and expect, exactly the shapes and dtypes the candidate returned
        self.out_specs = [(tuple(o.shape), o.dtype) for o in outs]
        self.grad_specs = [(tuple(g.shape), g.dtype) for g in grads]
        self.inputs, self.grads_out, self.n_in = inputs, grads_out, len(inputs)
        self.f_snrs, self.b_snrs, self.f_err, self.b_err = f_snrs, b_snrs, f_err, b_err
        if not intact:
            self.problems.append("the kernel modified its inputs")
        if f_bad or b_bad:
            self.problems.append("NaN/Inf in the outputs: forward %d, backward %d elements" % (f_bad, b_bad))
        passed = intact and check_verdict(check_class, f_snrs + b_snrs, f_ok and b_ok, f_bad + b_bad)
        if intact and not (f_bad or b_bad) and not passed:
            self.problems.append("outputs differ from the reference (SNR dB: forward %s, backward %s; CHECK %s)"
                                 % ("/".join(fmt(s) for s in f_snrs) or "-", "/".join(fmt(s) for s in b_snrs) or "-",
                                    check_class))
        for p in self.problems:
            print("%s: shape %s: %s" % (HARNESS_NAME, self.shape["label"], p), file=sys.stderr)
        return passed

    # -- the ring: input sets all alive at once (distinct addresses), together larger than the L2
    def _build_ring(self):
        base = tuple(self.inputs) + tuple(self.grads_out)
        set_bytes = sum(t.numel() * t.element_size() for t in base if torch.is_tensor(t)) or 1
        want = max(64, -(-2 * self.dev.l2 // set_bytes))
        share = self.dev.memory_share()  # this worker's, beside the others on the device
        n = int(max(2, min(want, 1024, (RING_OF_SHARE * share) // set_bytes)))
        self.ring = [tuple(t.detach().clone() for t in base) for _ in range(n)]
        self.ring_words = _RingWords(self.ring)
        self.cursor = 0
        # The checks' temporaries are cached per stream by torch's allocator, so each timing stream
        # may come to hold one budget: together at most STREAMS_OF_SHARE of the worker's share (an
        # H200 with two workers keeps the whole 1 GiB per stream; a 24 GB card gets about 300 MB).
        self.verify_budget = int(min(VERIFY_BUDGET_BYTES, STREAMS_OF_SHARE * share / self.dev.timing_streams))

    def release(self):
        """Frees the ring (the accumulated results stay for row(); a later batch builds it again)."""
        self.ring = None
        self.ring_words = _RingWords([])

    def _reads(self, direction):
        """How many of a ring slot's tensors a call of `direction` reads: its inputs, and grad_out
        only for backward. The others are neither refilled nor fingerprinted for it (a forward call
        never gets the slot's grad_out: new contents there were device work for nothing)."""
        return self.n_in if direction == "forward" else None

    def _refill(self, n, direction="backward"):
        """New contents (GPU RNG, queued) in the next n ring slots, drawn the way the op draws its inputs
        (the grad_out too for `direction` backward).
        Each slot's draw starts from a seed the system gives now: the kernel runs in this process and
        can read the generator, and a state that carried over would tell it the next slot's inputs
        before they exist (docs/integrity.md, class 8). Only the timed calls' slots: the prepare's
        check still draws from the request's seed, so its correctness columns repeat per seed."""
        slots = []
        for _ in range(n):
            slot = self.ring[self.cursor % len(self.ring)]
            self.cursor += 1
            self.gen.manual_seed(_fresh_seed())
            self.op.fill_inputs_(slot[:self.n_in], self.shape, self.gen)
            for t in slot[self.n_in:self._reads(direction)]:
                _fill_random_(t, self.gen)
            slots.append(slot)
        return slots

    def _event_sets(self, n):
        """Per call (or null slot): its start and end events and, where the device drains
        (Device.drain), the two around the drain behind the call."""
        per = 4 if self.dev.drains else 2
        while len(self._events) < n:
            self._events.append(tuple(self.dev.event() for _ in range(per)))
        return self._events[:n]

    def _timed_ms(self, events, null_ms):
        """(a call's time, its write-back charge) from its events: start to end, plus, where the
        device drains, the drain behind the call less `null_ms` (the batch's median drain behind a
        null slot, _null_slot): the write-back of what the call left dirty in the L2 (0 without a
        drain)."""
        charge = self.dev.elapsed(events[2], events[3]) - null_ms if len(events) > 2 else 0.0
        return self.dev.elapsed(events[0], events[1]) + charge, charge

    def _null_slot(self, events, hs):
        """A call's slot without the call: flush, start and end events with nothing between them,
        an unwritten-output snapshot of a stand-in output, and the timed drain. Its drain is what
        the drain costs behind a call that left nothing dirty, in the same order of kernels and
        events as behind a real call (the clean drain this replaced ran right behind the flush).
        The change left the H100's picture as it was: small outputs such as mm_1k's 2 MB are still
        charged 1.3-2.1 us beyond what the launch-free reference pays them, so that excess comes
        from the drain behind a call that wrote, not from what the drain is measured against
        (docs/gpu-validation.md, twentieth session)."""
        dev = self.dev
        dev.cold()
        dev.record(events[0], hs)
        dev.record(events[1], hs)
        _unwritten_snapshot([self._null_out], [self._null_pick])  # queued like a call's; never compared
        dev.record(events[2], hs)
        dev.drain()
        dev.record(events[3], hs)

    def _spin_ms(self, direction, calls):
        """The head start the GPU needs so that it never waits for the host in the next `calls`
        calls: the host queues call i by about i * h, the GPU reaches it after the spin plus at
        least (i - 1) * g, g a lower bound of the device time of one call's slot. So the spin must
        cover max(h, n h - (n - 1) g). For an 8k matmul (g above h) that is one call's host time,
        not all of them: the spin was a third of such a batch's wall time on the H200.

        g is the larger of two lower bounds: the kernel's least time, and 0.9 x the least slot the
        last batch measured from one start event to the next (the call, its checks, the next refill
        and flush), kept only when no call of that batch found the device waiting (then a slot is
        the device's work; a slot the device spent waiting reads the host's pace instead). Where
        the checks' device work covers the host's queueing (the memory-bound references cost many
        times the kernel), the spin shrinks to one call's host time; sized from the kernel alone it
        covered every call's host time, most of an RMSNorm batch (docs/gpu-validation.md)."""
        if calls <= 0:
            return 0.0
        h = self.host_ms.get(direction, 0.5)
        g = max(self.device_floor_ms.get(direction, 0.0), self.slot_floor_ms.get(direction, 0.0))
        need = max(h, calls * h - (calls - 1) * g)
        return min(SPIN_CAP_MS, SPIN_FLOOR_MS + SPIN_MARGIN * need)

    def _chunk_calls(self):
        """How many calls one stacked check takes: VERIFY_CHUNK, fewer where their copies (float and
        double temporaries of inputs and outputs) would pass the memory budget."""
        numel = sum(t.numel() for t in self.ring[0] if torch.is_tensor(t))
        numel += sum(math.prod(s) for s, _d in self.out_specs + self.grad_specs)
        return int(max(1, min(VERIFY_CHUNK, self.verify_budget // max(1, 24 * numel))))

    # -- one call: everything queued on the timed stream `hs`; its checks wait in `pending`
    def _call(self, direction, slot, pos, events, hs, join, i, acc, pending):
        dev, op = self.dev, self.op
        fwd = direction == "forward"
        ins, gouts = slot[:self.n_in], slot[self.n_in:]
        call = (lambda: op.forward(ins)) if fwd else op.prepare_backward(ins, gouts)
        specs = self.out_specs if fwd else self.grad_specs
        dev.poison_allocator(specs)
        dev.cold()
        dev.record(events[0], hs)
        if not join and dev.reached(events[0]):
            acc.starved.add(i)
        result = call()
        if join:
            dev.synchronize()  # device-wide: work the call left on other streams ends before the end event
        dev.record(events[1], hs)
        if dev.stream() != hs:
            acc.host_fail[i] = True
            acc.note("stream", "a call changed the current stream and did not restore it")
            dev.set_stream(hs)
        result = _as_tuple(result)
        bad_shape = len(result) < len(specs) or any(not torch.is_tensor(o) or tuple(o.shape) != s
                                                    for o, (s, _d) in zip(result, specs))
        if not bad_shape:
            result = result[:len(specs)]
            # right behind the end event and before the drain: writes left elsewhere are not in yet
            snap = _unwritten_snapshot(result, acc.picks)
            if snap is not None:
                acc.snapshots[i] = snap
        if dev.drains:
            dev.record(events[2], hs)
            dev.drain()
            dev.record(events[3], hs)
        if bad_shape:
            acc.host_fail[i] = True
            acc.note("shape", "a call returned outputs of another number or shape than the checked call")
            return
        pending.append((i, pos, result))

    def _check(self, direction, pending, slots, before, fp, acc):
        """Queues the checks of the pending calls (all on the current `slots`), a chunk at a time:
        the per-call reference (memory-bound ops) or Freivalds projection (GEMMs), and the inputs'
        fingerprints against `before`, one row per slot as fp.rows([slot]) gave it when the slot was
        written. Empties `pending`."""
        if not pending:
            return
        op, spec = self.op, self.spec
        fwd = direction == "forward"
        per = self._chunk_calls()
        stack = _stack_calls
        for c in range(0, len(pending), per):
            chunk = pending[c:c + per]
            n_out = len(chunk[0][2])
            outs = tuple(stack([r[k] for _i, _p, r in chunk]) for k in range(n_out))
            refs = ins = gouts = None
            if op.kind == "gemm":
                ins = tuple(stack([slots[p][k] for _i, p, _r in chunk]) for k in range(self.n_in))
                if not fwd:
                    gouts = tuple(stack([slots[p][k] for _i, p, _r in chunk]) for k in range(self.n_in, len(slots[0])))
            else:
                per_call = [op.reference_forward(slots[p][:self.n_in]) if fwd else
                            op.reference_backward(slots[p][:self.n_in], slots[p][self.n_in:]) for _i, p, _r in chunk]
                refs = tuple(stack([r[k] for r in per_call]) for k in range(len(per_call[0])))
                if self.nbytes[direction] is None:
                    p0, r0 = chunk[0][1], chunk[0][2]
                    # a forward call reads no grad_out: the ring's slots hold one only for backward calls
                    grads = slots[p0][self.n_in:] if not fwd else ()
                    self.nbytes[direction] = op.bytes(self.shape, slots[p0][:self.n_in], r0, grads, direction)
            # what each output held at its end event, against what it holds now
            snapped = [(i, r) for i, _p, r in chunk if i in acc.snapshots]
            flags = _unwritten_flags([(acc.snapshots.pop(i), r) for i, r in snapped], acc.picks)
            if flags is not None:
                acc.unwritten.append(([i for i, _r in snapped], flags))
            check_gen = torch.Generator(device=outs[0].device)
            check_gen.manual_seed(_fresh_seed())
            snrs, err = op.verify(direction, ins, gouts, outs, check_gen, refs)
            if err is not None:
                acc.max_err = err if acc.max_err is None else torch.maximum(acc.max_err, err)
            wrong = None
            for s in snrs:
                w = ~(s > spec["call_snr_db"])  # NaN compares False: wrong
                wrong = w if wrong is None else wrong | w
            worst = [s.amin() for s in snrs]
            acc.worst = worst if acc.worst is None else [torch.minimum(a, b) for a, b in zip(acc.worst, worst)]
            lo, hi = min(p for _i, p, _r in chunk), max(p for _i, p, _r in chunk) + 1
            tensors = [wrong]
            written = _cat_rows(before[lo:hi])  # only the chunk's rows: no copy of the whole pass per chunk
            if written is not None:
                after = fp.rows(slots[lo:hi], self._reads(direction))
                tensors.append((after != written).any(dim=1))
            acc.chunks.append(([(i, p) for i, p, _r in chunk], lo, tensors))
        del pending[:]

    def run_batch(self, direction, calls, seed=None, keep=True):
        """`calls` queued timed calls of one direction (plus the joined ones). `seed`: draw this
        batch's inputs from it. Returns {"times", "errors", "wall_ms", "idle_probe_us", "problems"};
        `keep`: the times count for the row (warm-up batches: no, but their errors do).

        Everything of the batch (refills, flushes, calls, checks) is queued on the worker's next
        timing stream, which is current for the batch, so a kernel that launches on torch's current
        stream (Triton does, and a native one must pass torch.cuda.current_stream()) runs on it.
        The caller's stream is current again afterwards.

        A batch that spoiled_cause finds disturbed is run again on the same stream (BATCH_RERUNS;
        `"reruns"` in the result lists the causes); past the bound SpoiledBatch fails the shape."""
        dev = self.dev
        outer = dev.stream()
        dev.synchronize()  # the previous batch's work, on another stream, is done before this one reads the ring
        dev.set_stream(dev.next_timing_stream(self.timing_streams))
        causes, errors, problems = [], 0, []  # the discarded attempts': their failed checks count
        try:
            while True:
                b = self._run_batch_on_current(direction, calls, seed, keep, len(causes) < BATCH_RERUNS)
                if not b["spoiled"]:
                    b["reruns"], b["errors"], b["problems"] = causes, b["errors"] + errors, problems + b["problems"]
                    return b
                causes.append(b["spoiled"])
                errors, problems = errors + b["errors"], problems + b["problems"]
                if len(causes) > BATCH_RERUNS:
                    raise SpoiledBatch("the %s batch was disturbed in %d attempts in a row: %s"
                                       % (direction, len(causes), "; ".join(causes)))
                print("%s: shape %s, %s batch run again (%d of %d): %s" % (
                    HARNESS_NAME, self.shape["label"], direction, len(causes), BATCH_RERUNS, causes[-1]), file=sys.stderr)
        finally:
            dev.set_stream(outer)

    def _run_batch_on_current(self, direction, calls, seed, keep, may_rerun=False):
        """One attempt of run_batch. `may_rerun`: an attempt spoiled_cause finds disturbed is
        discarded (its times and escape verdicts, not its failed checks); else it stands."""
        dev = self.dev
        if seed is not None:
            s = _label_seed(seed, self.shape["label"])
            self.gen.manual_seed(s)
        if self.ring is None:
            self._build_ring()
        ring_n = len(self.ring)
        n_joined = max(1, calls // 8)
        total = calls + n_joined
        joined = set(self.rng.sample(range(total), n_joined))  # secret positions
        # null slots (where the device drains): before calls at secret positions, like the joins
        nulls = sorted(self.rng.sample(range(total), null_slots(total))) if dev.drains else []
        events = self._event_sets(total + n_joined + len(nulls))  # then the confirmations', the nulls'
        null_events = dict(zip(nulls, events[total + n_joined:]))
        fp = _Fingerprinter(_fresh_seed(), self.verify_budget, self.ring_words.of)  # the secret weights
        acc = _BatchAcc(total + n_joined)
        acc.picks = _unwritten_picks(self.out_specs if direction == "forward" else self.grad_specs, _fresh_seed(),
                                     dev.dev)
        per = self._chunk_calls()
        # This pass over the ring: the slots written so far and their fingerprints. A slot is written
        # right before its call, queued behind every call before it, so no call can read (and
        # compute ahead) the inputs of a later one: with the whole batch's inputs written up front,
        # a kernel could do all the work in its first call and make the median call free.
        slots, before_rows = [], []
        pending = []
        dev.synchronize()
        probe, probes, idle_wait_ms, idle = wait_until_idle(dev.idle_probe_us)
        dev.reset_persisting_l2()
        alloc_before = dev.allocator_counts()
        hs = dev.stream()
        call_s, check_s = [], []  # host seconds per queued call (checks apart), per chunk check

        def check():
            c0 = _perf_counter()
            self._check(direction, pending, slots, before_rows, fp, acc)
            check_s.append(_perf_counter() - c0)
            return check_s[-1]

        h0 = _perf_counter()
        spin_ms = dev.spin(self._spin_ms(direction, total))
        for i in range(total):
            t0 = _perf_counter()
            checking = 0.0
            if len(slots) == ring_n:  # more calls than slots: check this pass before its slots are written again
                checking += check()
                slots, before_rows = [], []
            if i in null_events:
                self._null_slot(null_events[i], hs)
            slot = self._refill(1, direction)[0]
            slots.append(slot)
            before_rows.append(fp.rows([slot], self._reads(direction)))
            self._call(direction, slot, len(slots) - 1, events[i], hs, i in joined, i, acc, pending)
            if len(pending) >= per:
                checking += check()
            if i in joined:
                spin_ms += dev.spin(self._spin_ms(direction, total - i - 1))  # the join drained the queue: get ahead again
            else:
                call_s.append(_perf_counter() - t0 - checking)
        check()
        s0 = _perf_counter()
        dev.synchronize()
        drain_ms = (_perf_counter() - s0) * 1e3
        null_ms = median([dev.elapsed(ev[2], ev[3]) for ev in null_events.values()]) if nulls else 0.0
        timed = [self._timed_ms(ev, null_ms) for ev in events[:total]]
        times = [t for t, _charge in timed]
        queued = [t for i, t in enumerate(times) if i not in joined]
        charge_ms = [c for i, (_t, c) in enumerate(timed) if dev.drains and i not in joined]
        # From a queued call's start to the next call's start: what the device spends per call
        # (its share of the checks included). A joined call's slot holds the host's join: left out.
        slot_ms = [dev.elapsed(events[i][0], events[i + 1][0]) for i in range(total - 1) if i not in joined]
        event_ms = sum(times)
        confirmed = []  # the confirmations' times
        if dev.can_escape:
            med = median(queued)
            bound = ESCAPE_RATIO * med + dev.join_ms + ESCAPE_SLACK_MS
            for j, i in enumerate(sorted(joined)):
                if not times[i] > bound:
                    continue
                # One confirmation on fresh inputs: a host thread descheduled between the join and
                # the end event must not fail an honest kernel; escaping work is slow again.
                k = total + j
                dev.spin(self._spin_ms(direction, 1))
                one = self._refill(1, direction)
                one_before = fp.rows(one, self._reads(direction))
                self._call(direction, one[0], 0, events[k], hs, True, k, acc, pending)
                self._check(direction, pending, one, [one_before], fp, acc)
                dev.synchronize()
                again = self._timed_ms(events[k], null_ms)[0]
                event_ms += again
                confirmed.append(again)
                if again > bound:
                    acc.escaped.add(i)
                    acc.note("escaped", "work escaped the timed stream: calls timed with a device-wide join took "
                                        "%.4f and %.4f ms against a queued median of %.4f ms" % (times[i], again, med))
        # the batch's one read of the device-side results
        unw_calls = [i for calls, _flags in acc.unwritten for i in calls]
        parts = [(~torch.isfinite(torch.cat([flags for _calls, flags in acc.unwritten]))).double()] if unw_calls else []
        for _calls, _lo, tensors in acc.chunks:
            parts += [t.double().reshape(-1) for t in tensors]
        parts += [w.double().reshape(1) for w in (acc.worst or [])]
        if acc.max_err is not None:
            parts.append(acc.max_err.double().reshape(1))
        vals = torch.cat(parts).tolist() if parts else []
        wall_ms = (_perf_counter() - h0) * 1e3
        allocator = tuple(b - a for a, b in zip(alloc_before, dev.allocator_counts()))
        spoiled = spoiled_cause(allocator, times + confirmed)
        discard = bool(spoiled) and may_rerun
        if discard:
            acc.notes.pop("escaped", None)
        n_ev = total + n_joined
        if event_ms > wall_ms + 0.001 * n_ev + 0.01:
            # every event of the batch was recorded after h0 and completed before the last read
            raise TamperError("device-event times of a batch add up to %.4f ms, more than the %.4f ms of host wall "
                              "time around it (shape %s, %s)" % (event_ms, wall_ms, self.shape["label"], direction))
        # unpack, in the order packed: the failure reasons of every call, then the worst SNRs
        unwritten_at = {i: bool(v) for i, v in zip(unw_calls, vals[:len(unw_calls)])}
        pos = len(unw_calls)
        wrong_at, changed_at = {}, {}
        for chunk_calls, lo, tensors in acc.chunks:
            n = len(chunk_calls)
            for (i, _p), v in zip(chunk_calls, vals[pos:pos + n]):
                wrong_at[i] = bool(v)
            pos += n
            if len(tensors) > 1:
                span = tensors[1].numel()
                for i, p in chunk_calls:
                    changed_at[i] = bool(vals[pos + p - lo])
                pos += span
        n_out = len(acc.worst or [])
        worst = vals[pos:pos + n_out]
        batch_err = vals[pos + n_out] if acc.max_err is not None else None
        unwritten = sum(unwritten_at.values())
        wrong = sum(wrong_at.values())
        changed = sum(changed_at.values())
        errors = sum(1 for i in range(n_ev) if acc.host_fail[i] or unwritten_at.get(i) or wrong_at.get(i)
                     or changed_at.get(i) or (i in acc.escaped and not discard))
        problems = []
        if unwritten:
            problems.append("%d call(s) returned with their output unwritten on the timed stream (NaN poison left, "
                            "or written after the end event: work on another stream? launch on "
                            "torch.cuda.current_stream(), not the default stream)" % unwritten)
        if wrong:
            problems.append("%d call(s) failed the per-call check (worst per-call SNR %s dB)"
                            % (wrong, fmt(min(worst, key=lambda x: -1e300 if math.isnan(x) else x))))
        if changed:
            problems.append("%d call(s) modified their inputs" % changed)
        if not idle:
            problems.append("the GPU stayed busy for %.0f ms before the batch (%d probes, the last %.0f us against "
                            "%.0f us idle): work another process left running on it" % (idle_wait_ms, probes, probe,
                                                                                        IDLE_PROBE_BOUND_US))
        problems += list(acc.notes.values())
        if spoiled and not discard:
            problems.append("disturbed in every attempt: %s" % spoiled)
        for p in problems:
            print("%s: shape %s, %s batch: %s" % (HARNESS_NAME, self.shape["label"], direction, p), file=sys.stderr)
        self.errors += errors
        w = self.worst[direction]
        w[:] = [_worse(a, b) for a, b in zip(w, worst)] if w else list(worst)
        if batch_err is not None and not math.isnan(self.max_err):
            self.max_err = float("nan") if math.isnan(batch_err) else max(self.max_err, batch_err)
        self.host_ms[direction] = host_ms_per_call(call_s, check_s, total)
        result = {"times": queued, "errors": errors, "wall_ms": wall_ms, "idle_probe_us": probe, "problems": problems,
                  "idle_wait_ms": idle_wait_ms, "gpu_busy": not idle, "spoiled": spoiled,
                  "joined_ms": [times[i] for i in sorted(joined)], "charge_ms": charge_ms, "null_drain_ms": null_ms}
        if discard:
            return result  # nothing of its timing is kept: not its times, floors or batch split
        if keep:
            if any(allocator):
                print("%s: shape %s, %s batch (kept batch %d): the allocator retried %d time(s), called cudaMalloc "
                      "%d and cudaFree %d time(s) between its queued calls" % ((HARNESS_NAME, self.shape["label"],
                      direction, self.batch_time.batches + 1) + allocator), file=sys.stderr)
            self.batch_time.add(wall_ms, spin_ms, 1e3 * sum(call_s), 1e3 * sum(check_s), drain_ms, slot_ms,
                                len(acc.starved), allocator, charge_ms)
        if queued:
            # a kernel that gets faster later only shortens its own head start: its calls read slower
            self.device_floor_ms[direction] = 0.9 * min(queued)
        self.slot_floor_ms[direction] = slot_floor_ms(slot_ms, len(acc.starved)) or 0.0
        if keep:
            self.times[direction].extend(queued)
        return result

    def warmup(self, direction, n_plain, sizing=True):
        """`n_plain` plain calls (compiles, autotunes; a random count, so the phase cannot be found
        by counting calls), then three verified warm-up batches: the first, on the first timing
        stream, pays the first-use costs of the checks (allocations, kernel loads) and measures the
        memory a batch has live at once, which sets how many timing streams the shape takes in turn
        (timing_streams_within) and is then left cached for each of them (Device.spread_first_use);
        the second (WARMUP_BATCH calls) learns the steady
        host time per call that sizes the spins, the third is longer (about WARMUP_FILL_MS, at least
        twice the second). Returns what one more call adds to a batch, in ms: the difference of the
        two batches' wall times over the difference of their calls.

        A batch also has fixed costs (the ring refill, the fingerprints, a chunk's stacked checks,
        the final synchronize): on the H200 about 7 ms, more than an 18 us matmul's calls. Reported
        per call from one 8-call batch, they made kopt size mm_1k's 20 ms batches at 4 calls, whose
        medians were so noisy (1.85% per block) that the BASELINE refused the harness. Sized by the
        marginal cost, a batch runs about the fixed costs plus batch_ms of calls.

        `sizing` False (kopt's arms once the best build's batch size is remembered) skips the third
        batch and returns the second's wall time per call."""
        if self.ring is None:
            self._build_ring()
        for _ in range(n_plain):
            slot = self._refill(1, direction)[0]  # as in a batch: no call finds a later call's inputs written
            if direction == "forward":
                self.op.forward(slot[:self.n_in])
            else:
                self.op.prepare_backward(slot[:self.n_in], slot[self.n_in:])()
        # The batches start over at the first slot: a cache keyed by address that the plain calls
        # filled meets new contents at the same addresses at once.
        self.cursor = 0
        self.dev.synchronize()
        start = self.dev.peak_start()
        first = self.timing_streams
        self.timing_streams = 1  # a shape's first batch on the stream every shape uses: its need is not known yet
        self.run_batch(direction, WARMUP_BATCH, keep=False)
        self.stream_need = max(self.stream_need, self.dev.peak_since(start))
        self.timing_streams = min(first, timing_streams_within(self.stream_need, self.dev.total_memory(),
                                                               self.dev.timing_streams, self.dev.memory_share()))
        self.dev.spread_first_use(self.stream_need, self.timing_streams)
        small = self.run_batch(direction, WARMUP_BATCH, keep=False)["wall_ms"]
        if not sizing:
            return max(small / WARMUP_BATCH, 1e-3)
        n = int(max(2 * WARMUP_BATCH, min(4 * VERIFY_CHUNK, WARMUP_FILL_MS * WARMUP_BATCH / max(small, 1e-3))))
        big = self.run_batch(direction, n, keep=False)["wall_ms"]
        # a noisy difference must not report a call as (nearly) free: at least a tenth of the average
        per_call = max((big - small) / (n - WARMUP_BATCH), 0.1 * big / n, 1e-3)
        self.sizing_notes.append("sizing %s: %d calls %.1f ms, %d calls %.1f ms: %.3g ms a call"
                                 % (direction, WARMUP_BATCH, small, n, big, per_call))
        return per_call

    def ok(self):
        return self.passed and self.errors == 0 and not self.failed

    def row(self):
        """The frozen-schema row over everything measured since the check."""
        op, shape = self.op, self.shape
        row = {"label": shape["label"], **{k: shape[k] for k in shape if k != "label"}}
        # The SNR columns report the worst of the full check and every per-call projection.
        f_snrs = [_worse(a, b) for a, b in zip(self.f_snrs, self.worst["forward"])] if self.worst["forward"] else self.f_snrs
        bw = self.worst.get("backward")
        b_snrs = [_worse(a, b) for a, b in zip(self.b_snrs, bw)] if bw else self.b_snrs
        f_times, b_times = self.times["forward"], self.times.get("backward", [])

        def summarize(times, work, unit_scale):
            if not times:
                return float("nan"), float("nan"), float("nan")
            med = median(times)
            per_call = [work / (t * 1e-3) / unit_scale for t in times]
            return work / (med * 1e-3) / unit_scale, pstddev(per_call), med

        row["Check"] = "PASS" if self.ok() else "FAIL"
        nan3 = (float("nan"),) * 3
        if op.kind == "gemm":
            row["Forward TFLOPS"], row["Forward TFLOPS_stddev"], row["Forward Time (ms)"] = summarize(
                f_times, self.flops["forward"], 1e12)
            row["Backward TFLOPS"], row["Backward TFLOPS_stddev"], row["Backward Time (ms)"] = (
                summarize(b_times, self.flops["backward"], 1e12) if b_times else nan3)
            row["out_snr"] = f_snrs[0] if f_snrs else float("nan")
            row["da_snr"] = b_snrs[0] if len(b_snrs) > 0 else float("nan")
            row["db_snr"] = b_snrs[1] if len(b_snrs) > 1 else float("nan")
        else:
            row["Forward GB/s"], row["Forward GB/s_stddev"], row["Forward Time (ms)"] = summarize(
                f_times, self.nbytes["forward"] or 0.0, 1e9)
            row["Backward GB/s"], row["Backward GB/s_stddev"], row["Backward Time (ms)"] = (
                summarize(b_times, self.nbytes["backward"] or 0.0, 1e9) if b_times else nan3)
            errs = (self.f_err, self.b_err, self.max_err)
            row["max_abs_err"] = float("nan") if any(math.isnan(e) for e in errs) else max(errs)
        return row

    def series_entry(self, direction, stop):
        return {"label": self.shape["label"], "direction": direction, "times": self.times[direction], "stop": stop,
                "flops": self.flops[direction], "bytes": self.nbytes[direction] if self.op.kind != "gemm" else None}


def measure_shape(op, shape, opts, check_class):
    """CLI mode: the check, then per direction a warm-up and CLI_BATCH-call batches until the
    adaptive stopping rule says stop. Returns (row, series)."""
    sb = ShapeBench(op, shape, opts.seed, check_class)
    series = []
    for direction in sb.directions:
        sb.warmup(direction, sb.rng.randint(opts.warmup_min, opts.warmup_max))
        share = 1.0 if len(sb.directions) == 1 else (1.0 / 3.0 if direction == "forward" else 2.0 / 3.0)
        sampler = Sampler(opts.min_samples, opts.max_samples, opts.target_rsd, opts.time_cap_s * share)
        times = sb.times[direction]
        while True:
            reason = sampler.stop(times)
            if reason:
                break
            sb.run_batch(direction, min(CLI_BATCH, opts.max_samples - len(times)))
        series.append(sb.series_entry(direction, reason))
    if sb.errors:
        print("%s: shape %s: %d timed call(s) failed the per-call checks" % (HARNESS_NAME, shape["label"], sb.errors),
              file=sys.stderr)
    return sb.row(), series


def failed_row(shape, kind):
    row = {"label": shape["label"], **{k: shape[k] for k in shape if k != "label"}, "Check": "FAIL"}
    for c in (GEMM_COLUMNS if kind == "gemm" else MEMORY_COLUMNS):
        row.setdefault(c, float("nan"))
    return row


def config_from_globals(overrides=None):
    cfg = {k: globals()[k] for k in ("BACKEND", "BACKEND_ENV", "KIND", "KERNEL_MODULE", "FORWARD", "BACKWARD",
                                     "INPUT_DTYPE", "CHECK", "SHAPES")}
    cfg.update(overrides or {})
    return cfg


# --config FILE: the harness's frozen sidecar. Keys (JSON) -> config names; relative paths are
# relative to the file's folder. `kopt init` writes it (docs/byo-kernel.md).
CONFIG_FILE_VERSION = 1
CONFIG_FILE_KEYS = {
    "backend": "BACKEND", "backend_env": "BACKEND_ENV", "kind": "KIND", "kernel_module": "KERNEL_MODULE",
    "forward": "FORWARD", "backward": "BACKWARD", "input_dtype": "INPUT_DTYPE", "check": "CHECK",
    "device": "DEVICE", "repo_root": "REPO_ROOT", "shapes": "SHAPES",
}
CONFIG_FILE_REQUIRED = ("backend", "kind", "kernel_module", "shapes")


def load_config_file(path):
    """-> (config overrides, folder of the file). Every problem names the key and the fix (exit 2)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise HarnessError("--config %s: cannot read it (%s)" % (path, e.strerror), 2)
    except ValueError as e:
        raise HarnessError("--config %s is not JSON: %s" % (path, e), 2)
    where = "--config %s" % path
    if not isinstance(data, dict):
        raise HarnessError("%s: must be a JSON object of settings (kopt init writes one)" % where, 2)
    if data.get("kopt_harness_config") != CONFIG_FILE_VERSION:
        raise HarnessError("%s: \"kopt_harness_config\" must be %d (the version this harness reads), got %r"
                           % (where, CONFIG_FILE_VERSION, data.get("kopt_harness_config")), 2)
    unknown = sorted(k for k in data if k not in CONFIG_FILE_KEYS and k != "kopt_harness_config")
    if unknown:
        raise HarnessError("%s: unknown key %s; the keys are %s" % (where, ", ".join(map(repr, unknown)),
                                                                 ", ".join(sorted(CONFIG_FILE_KEYS))), 2)
    missing = [k for k in CONFIG_FILE_REQUIRED if k not in data]
    if missing:
        raise HarnessError("%s: missing %s" % (where, ", ".join(missing)), 2)
    folder = os.path.dirname(os.path.abspath(path))
    cfg = {}
    for key, name in CONFIG_FILE_KEYS.items():
        if key not in data:
            continue
        value = data[key]
        if key == "shapes":
            if not isinstance(value, list) or not value:
                raise HarnessError("%s: \"shapes\" must be a non-empty list of {\"label\", \"B\", \"M\", \"N\"[, \"K\"]}"
                                   % where, 2)
        elif not isinstance(value, str):
            raise HarnessError("%s: \"%s\" must be a string, got %r" % (where, key, value), 2)
        cfg[name] = value
    if "REPO_ROOT" in cfg:
        cfg["REPO_ROOT"] = os.path.realpath(os.path.join(folder, cfg["REPO_ROOT"]))
        if not os.path.isdir(cfg["REPO_ROOT"]):
            raise HarnessError("%s: \"repo_root\" %r is not a folder (it is relative to the config file)"
                               % (where, data["repo_root"]), 2)
    return cfg, folder


def validate_config(cfg):
    if cfg["KIND"] not in ("gemm", "memory"):
        raise HarnessError("KIND must be \"gemm\" or \"memory\", got %r" % cfg["KIND"], 2)
    if cfg["CHECK"] not in CHECKS:
        raise HarnessError("CHECK %r is not one of %s" % (cfg["CHECK"], ", ".join(CHECKS)), 2)
    if BACKEND_PLACEHOLDER in str(cfg["BACKEND"]):
        raise HarnessError("BACKEND still holds the placeholder %s: kopt fills it at PREPARE_ENVIRONMENT "
                           "(or set it, e.g. BACKEND = \"TRITON\")" % BACKEND_PLACEHOLDER, 2)
    if cfg.get("DEVICE", "cuda") not in ("cuda", "cpu"):
        raise HarnessError("DEVICE must be \"cuda\" or \"cpu\", got %r" % cfg["DEVICE"], 2)
    if not cfg["SHAPES"]:
        raise HarnessError("SHAPES is empty: kopt fills it at BASELINE with the target shapes", 2)
    return normalize_shapes(cfg["SHAPES"], cfg["KIND"])


def load_op(cfg, base_dir, device, dtype, shapes):
    """Imports the kernel module (only now, after every timer was captured) -> (op or None, error
    text). A module that does not import or lacks a function is the kernel's fault: FAIL rows."""
    module, error = None, ""
    pin = AutotunePin.before_import(cfg, base_dir, device.name)
    try:
        module = load_kernel_module(cfg["KERNEL_MODULE"], base_dir, cfg.get("REPO_ROOT", ""))
        pin.attach(module)
        check_imports_inside(cfg.get("REPO_ROOT", ""))
        if callable(cfg.get("KERNEL_HOOK")):
            cfg["KERNEL_HOOK"](module, shapes)
    except HarnessError:
        raise
    except Exception as e:
        error = "importing the kernel module failed: %s: %s" % (type(e).__name__, e)
        print("%s: %s" % (HARNESS_NAME, error), file=sys.stderr)
    assert_timers_intact("after importing the kernel module")
    if module is None:
        return None, error
    try:
        op = Op(cfg, module, device, dtype)
        op.autotune = pin
        return op, ""
    except HarnessError as e:  # the module lacks a configured function
        print("%s: %s" % (HARNESS_NAME, e), file=sys.stderr)
        return None, str(e)


# ----------------------------------------------------------------------------------------------
# Worker mode (--serve): harness/WORKER-PROTOCOL.md, version 1. The parsing and the request loop are
# pure Python (tested by --self-test); Worker does the measuring.

WORKER_PROTOCOL = 1
WORKER_OPS = ("hello", "warm", "prepare", "batch", "row", "quit")
MAX_BATCH_CALLS = 1 << 16
_U64 = 1 << 64


class RequestError(Exception):
    """A request the worker refuses: an ok:false reply, and the worker takes the next request."""

    def __init__(self, message, rid=None):
        super().__init__(message)
        self.rid = rid


def one_line(text, limit=600):
    """Error texts travel as one line: whitespace (newlines included) collapsed, length capped."""
    t = " ".join(str(text).split())
    return t if len(t) <= limit else t[:limit - 3] + "..."


def parse_seed(value, what="seed"):
    """A seed is a decimal string (63/64-bit seeds do not survive JSON doubles) of 0 .. 2^64-1."""
    if not isinstance(value, str) or not (1 <= len(value) <= 20) or any(c not in "0123456789" for c in value):
        raise RequestError("'%s' must be a decimal string of a non-negative integer, got %s"
                           % (what, one_line(json.dumps(value), 80)))
    n = int(value)
    if n >= _U64:
        raise RequestError("'%s' must be below 2^64, got %s" % (what, value))
    return n


def parse_request(line):
    """One request line -> (id, op, fields). Raises RequestError (carrying the id when it was read)."""
    try:
        req = json.loads(line)
    except ValueError as e:
        raise RequestError("the request is not JSON (%s): send one JSON object per line" % e)
    if not isinstance(req, dict):
        raise RequestError("a request must be a JSON object, got %s" % type(req).__name__)
    rid = req.get("id")
    op = req.get("op")
    fields = {}
    try:
        if not isinstance(op, str) or op not in WORKER_OPS:
            raise RequestError("unknown op %s (this worker speaks %s)" % (one_line(json.dumps(op), 80), ", ".join(WORKER_OPS)))
        if op == "hello":
            p = req.get("protocol")
            if isinstance(p, bool) or not isinstance(p, int):
                raise RequestError("hello needs an integer 'protocol'")
            if p != WORKER_PROTOCOL:
                raise RequestError("this harness speaks worker protocol %d, not %d" % (WORKER_PROTOCOL, p))
        if op in ("prepare", "batch", "row", "warm"):
            shape = req.get("shape")
            if not isinstance(shape, str) or not shape:
                raise RequestError("%s needs 'shape', a shape label" % op)
            fields["shape"] = shape
        if op in ("prepare", "batch", "warm"):
            fields["seed"] = parse_seed(req.get("seed"))
        if op == "prepare":
            sizing = req.get("sizing", True)
            if not isinstance(sizing, bool):
                raise RequestError("prepare's 'sizing' must be true or false (default true), got %s"
                                   % one_line(json.dumps(sizing), 80))
            fields["sizing"] = sizing
        if op == "batch":
            calls = req.get("calls")
            if isinstance(calls, bool) or not isinstance(calls, int) or not 1 <= calls <= MAX_BATCH_CALLS:
                raise RequestError("batch needs 'calls', an integer from 1 to %d" % MAX_BATCH_CALLS)
            fields["calls"] = calls
    except RequestError as e:
        e.rid = rid
        raise
    return rid, op, fields


def reply_line(obj):
    """One reply as one line of JSON; NaN/Inf are refused (JSON has none)."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=False)


def serve_loop(read_line, write_line, handle):
    """Reads requests until EOF or quit (-> 0) and writes one reply line per request, in order.
    `handle(op, fields)` returns the reply's fields or raises RequestError; any other exception of a
    request is an ok:false reply too (the worker stays usable), except TamperError, which ends the
    worker (the caller exits 3)."""
    while True:
        line = read_line()
        if not line:
            return 0
        if not line.strip():
            continue
        rid = op = None
        try:
            rid, op, fields = parse_request(line)
            reply = {"id": rid, "ok": True}
            if op != "quit":
                reply.update(handle(op, fields))
            text = reply_line(reply)
        except TamperError:
            raise
        except RequestError as e:
            text = reply_line({"id": e.rid if e.rid is not None else rid, "ok": False, "error": one_line(e)})
        except Exception as e:
            text = reply_line({"id": rid, "ok": False, "error": one_line("%s: %s" % (type(e).__name__, e))})
        write_line(text)
        if op == "quit":
            return 0


class Worker:
    """The measuring side of --serve: one ShapeBench per prepared shape."""

    def __init__(self, cfg, shapes, device, op, load_error):
        self.cfg, self.device, self.op, self.load_error = cfg, device, op, load_error
        # what kopt compares with the other arm's (hooks_fingerprint); None: no kernel module loaded
        self.hooks = op_hooks(op, cfg)
        self.kind = cfg["KIND"]
        self.shapes = {s["label"]: s for s in shapes}
        self.order = [s["label"] for s in shapes]
        self.benches = {}  # label -> ShapeBench, or a string: why the prepare ended in ERROR

    def handle(self, op, f):
        try:
            if op == "hello":
                reply = {"protocol": WORKER_PROTOCOL, "harness": HARNESS_NAME, "device": self.device.name,
                         "csv_header": csv_text(self.kind, []).rstrip("\n"), "shapes": list(self.order)}
                if self.hooks:
                    reply["hooks"] = self.hooks
                if self.op is not None:
                    reply["warm"] = True
                return reply
            label = f["shape"]
            if label not in self.shapes:
                raise RequestError("unknown shape '%s' (this harness has %s)" % (label, ",".join(self.order)))
            reply = getattr(self, "_" + op)(label, f)
            if op in ("prepare", "warm") and op_autotune(self.op).reply_field(label):
                reply["autotune"] = op_autotune(self.op).reply_field(label)
            return reply
        finally:
            assert_timers_intact("while serving '%s'" % op)

    def _warm(self, label, f):
        """The shape's full check once, thrown away: the first use of the kernel (a JIT's compile or
        cache load, its first launches) and of the checks on this shape's sizes, which the first
        prepare paid, one worker at a time. kopt sends it to every worker of a look at once, after
        the tests and before anything is timed (harness/WORKER-PROTOCOL.md); nothing here is timed
        and no calibration runs (that waits for the first prepare)."""
        if self.op is None:
            raise RequestError("nothing to warm: the kernel module did not load (%s)" % one_line(self.load_error, 200))
        t0 = _perf_counter()
        try:
            check = "PASS" if ShapeBench(self.op, self.shapes[label], f["seed"], self.cfg["CHECK"]).passed else "FAIL"
        except TamperError:
            raise
        except Exception as e:  # the prepare that follows reports it
            print("%s: warm %s: %s: %s" % (HARNESS_NAME, label, type(e).__name__, e), file=sys.stderr)
            check = "ERROR"
        ms = (_perf_counter() - t0) * 1e3
        _log_times("warm " + label, [("check", ms)], "check " + check)
        return {"shape": label, "check": check, "ms": ms}

    def _prepare(self, label, f):
        t_entry = _perf_counter()  # the log's "in all" against kopt's prepare_ms tells where the rest goes
        for other in self.benches.values():  # kopt measures one shape at a time: free the others' rings
            if isinstance(other, ShapeBench):
                other.release()
        self.benches.pop(label, None)
        if self.op is None:
            self.benches[label] = self.load_error
            return {"shape": label, "check": "ERROR", "problem": one_line(self.load_error), "call_ms": {}}
        call_ms = {}
        try:
            t0 = _perf_counter()
            sb = ShapeBench(self.op, self.shapes[label], f["seed"], self.cfg["CHECK"])
            times = [("check", (_perf_counter() - t0) * 1e3)]
            if sb.passed:
                for d in sb.directions:
                    t0 = _perf_counter()
                    call_ms[d] = sb.warmup(d, sb.rng.randint(DEFAULTS["warmup_min"], DEFAULTS["warmup_max"]),
                                           sizing=f.get("sizing", True))
                    times.append(("warm-up " + d, (_perf_counter() - t0) * 1e3))
            times.append(("in all", (_perf_counter() - t_entry) * 1e3))
            _log_times("prepare " + label, times, "; ".join(
                ["timing streams %d (a batch's peak %.0f MB)" % (sb.timing_streams, sb.stream_need / 2 ** 20)]
                + sb.sizing_notes) if sb.passed else "")
        except TamperError:
            raise
        except Exception as e:  # the kernel threw (or returned something unusable)
            why = "%s: %s" % (type(e).__name__, e)
            print("%s: shape %s: %s" % (HARNESS_NAME, label, why), file=sys.stderr)
            self.benches[label] = why
            return {"shape": label, "check": "ERROR", "problem": one_line(why), "call_ms": {}}
        self.benches[label] = sb
        problems = list(sb.problems)
        if sb.passed and sb.errors:
            problems.append("%d warm-up call(s) failed the per-call checks" % sb.errors)
        return {"shape": label, "check": "PASS" if sb.ok() else "FAIL", "problem": one_line("; ".join(problems)),
                "call_ms": call_ms}

    def _batch(self, label, f):
        sb = self.benches.get(label)
        if sb is None:
            raise RequestError("shape '%s' is not prepared: send prepare first" % label)
        if not isinstance(sb, ShapeBench):
            raise RequestError("shape '%s' has no measurement: its prepare ended in ERROR (%s)" % (label, one_line(sb, 200)))
        if sb.failed:
            raise RequestError("shape '%s' already failed: %s" % (label, one_line(sb.failed, 200)))
        series, errors, wall, probe, problems = [], 0, 0.0, None, []
        idle_wait_ms, gpu_busy, reruns = 0.0, False, 0
        seed = f["seed"]
        t_handle = _perf_counter()
        try:
            for k, d in enumerate(sb.directions):
                # one seed per direction, derived from the batch's: the directions never share inputs
                b = sb.run_batch(d, f["calls"], seed=(seed + k) % _U64)
                if any(not (t > 0 and math.isfinite(t)) for t in b["times"]):
                    raise RuntimeError("a timed call read %s ms (below the event timer's resolution?)"
                                       % fmt(min(b["times"])))
                series.append({"direction": d, "times_ms": b["times"], "flops": sb.flops[d],
                               "bytes": sb.nbytes[d] if self.kind != "gemm" else None})
                errors += b["errors"]
                wall += b["wall_ms"]
                probe = b["idle_probe_us"] if probe is None else probe
                idle_wait_ms += b["idle_wait_ms"]
                gpu_busy = gpu_busy or b["gpu_busy"]
                problems += b["problems"] + ["%s batch run again: %s" % (d, c) for c in b["reruns"]]
                reruns += len(b["reruns"])
        except TamperError:
            raise
        except Exception as e:
            sb.failed = "%s: %s" % (type(e).__name__, e)
            print("%s: shape %s: a batch failed: %s" % (HARNESS_NAME, label, sb.failed), file=sys.stderr)
            raise RequestError("the batch failed (the shape is FAIL): %s" % sb.failed)
        return {"shape": label, "errors": errors, "wall_ms": wall, "idle_probe_us": probe, "series": series,
                "problem": one_line("; ".join(problems)), "handle_ms": (_perf_counter() - t_handle) * 1e3,
                "idle_wait_ms": idle_wait_ms, "gpu_busy": gpu_busy, "reruns": reruns}

    def _row(self, label, f):
        assert_hooks_intact(self.op, self.hooks, self.cfg, "while the worker served")
        sb = self.benches.get(label)
        if sb is None:
            raise RequestError("shape '%s' is not prepared: send prepare first" % label)
        row = sb.row() if isinstance(sb, ShapeBench) else failed_row(self.shapes[label], self.kind)
        if isinstance(sb, ShapeBench) and sb.batch_time.batches:
            _log_times("batches " + label, sb.batch_time.parts(), sb.batch_time.counts())
        return {"shape": label, "row": csv_text(self.kind, [row]).split("\n")[1]}


def warm_harness(device):
    """First use of what every prepare runs whatever the kernel: the GPU generator, float32 GEMMs and
    matrix-vector products (the references, Freivalds' projections, batched as the stacked checks
    batch them), the 64-bit fingerprint arithmetic, the casts and reductions of the comparisons.
    Nothing of the kernel runs and nothing is timed, so in worker mode this overlaps the other
    worker's start-up instead of lengthening the first prepare, which kopt runs one worker at a
    time (on the H200, mm_1k's full check took 0.66 s, most of it first use)."""
    if device.dev.type == "cpu":
        return
    gen = torch.Generator(device=device.dev)
    gen.manual_seed(1)
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        a = torch.empty(2, 64, 64, device=device.dev, dtype=dtype)
        a.normal_(generator=gen)
        af = a.float()
        x = torch.randint(0, 2, (64, 1), generator=gen, device=device.dev).float() * 2 - 1
        ref = torch.matmul(af[0], af[1])
        proj = torch.matmul(af, torch.matmul(af, x))
        _snr_rows(proj, proj + 1e-3)
        _compare_rows((ref.unsqueeze(0),), (ref.to(dtype).unsqueeze(0),))
        torch.isfinite(a).all()
        w = _words(a)
        (w.to(torch.int64) * torch.randint(-(1 << 62), 1 << 62, w.shape, generator=gen, device=device.dev,
                                            dtype=torch.int64)).sum(dim=-1)
        torch.stack([ref, ref]).double().reshape(-1).tolist()
    device.synchronize()


def serve(cfg, opts, base_dir, shapes):
    """--serve: the replies get a private duplicate of fd 1, and fd 1 becomes fd 2 before the kernel
    module is imported, so nothing the kernel prints can reach the reply channel."""
    reply_fd = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    out = os.fdopen(reply_fd, "w", encoding="utf-8", newline="\n")
    started = _since_process_start_ms()  # interpreter, harness and torch imports
    t0 = _perf_counter()
    device = Device() if opts.device == "cuda" else CpuDevice()
    t1 = _perf_counter()
    dtype = torch_dtype(cfg["INPUT_DTYPE"], device.is_rocm, device.arch)
    op, load_error = load_op(cfg, base_dir, device, dtype, shapes)
    worker = Worker(cfg, shapes, device, op, load_error)
    t2 = _perf_counter()
    warm_harness(device)
    _log_times("start-up", [("until serve", started), ("device", (t1 - t0) * 1e3),
                            ("kernel module", (t2 - t1) * 1e3), ("harness first use", (_perf_counter() - t2) * 1e3)])

    def write_line(text):
        out.write(text + "\n")
        out.flush()

    def read_line():
        return sys.stdin.buffer.readline().decode("utf-8", "replace")

    rc = serve_loop(read_line, write_line, worker.handle)
    # The last reply is out: end here. Tearing down torch, the CUDA context and the kernel module
    # took each worker about a second on the H200 (most of a look's "close"), for nothing: the
    # driver frees a process's context when it exits.
    out.flush()
    sys.stderr.flush()
    os._exit(rc)


def run(cfg, argv, base_dir):
    opts = parse_args(argv)
    opts.warmup_min, opts.warmup_max = DEFAULTS["warmup_min"], DEFAULTS["warmup_max"]
    if opts.config:
        overrides, base_dir = load_config_file(opts.config)
        cfg = {**cfg, **overrides}
    shapes = validate_config(cfg)
    opts.device = opts.device or cfg.get("DEVICE") or "cuda"
    if opts.serve and (opts.summary_csv or opts.samples or opts.list_shapes or opts.require_pass):
        raise HarnessError("--serve answers on stdout (harness/WORKER-PROTOCOL.md); it takes no --summary-csv, "
                           "--samples, --list-shapes or --require-pass", 2)
    if opts.list_shapes:
        for s in shapes:
            print(s["label"], *[s[d] for d in ("B", "M", "N", "K") if d in s])
        return 0
    shapes = select_shapes(shapes, opts.shape_list)
    kind = cfg["KIND"]
    if cfg["BACKEND_ENV"]:
        os.environ[cfg["BACKEND_ENV"]] = str(cfg["BACKEND"])
    if opts.serve:
        return serve(cfg, opts, base_dir, shapes)
    device = Device() if opts.device == "cuda" else CpuDevice()
    dtype = torch_dtype(cfg["INPUT_DTYPE"], device.is_rocm, device.arch)
    op, _error = load_op(cfg, base_dir, device, dtype, shapes)
    hooks = op_hooks(op, cfg)

    rows, series = [], []
    for shape in shapes:
        if op is None:
            rows.append(failed_row(shape, kind))
            continue
        try:
            row, s = measure_shape(op, shape, opts, cfg["CHECK"])
            rows.append(row)
            series.extend(s)
        except TamperError:
            raise
        except Exception as e:
            print("%s: shape %s: %s: %s" % (HARNESS_NAME, shape["label"], type(e).__name__, e), file=sys.stderr)
            rows.append(failed_row(shape, kind))
        assert_timers_intact("while measuring shape %s" % shape["label"])

    check_imports_inside(cfg.get("REPO_ROOT", ""))  # modules the kernel imported lazily, too
    assert_hooks_intact(op, hooks, cfg, "while measuring")
    text = csv_text(kind, rows)
    if opts.summary_csv:
        write_atomically(opts.summary_csv, text)
    else:
        sys.stdout.write(text)
    if opts.samples:
        write_atomically(opts.samples, samples_text(device.name, opts.seed, series, hooks))
    failed = [r["label"] for r in rows if r.get("Check") != "PASS"]
    if opts.require_pass and failed:
        print("%s: --require-pass: not PASS: %s" % (HARNESS_NAME, ", ".join(failed)), file=sys.stderr)
        return 1
    return 0


def main(argv=None, config=None, base_dir=None):
    """Entry point; harness configs (e.g. kernels/triton/matmul_bench.py) call main(config=...)."""
    argv = sys.argv[1:] if argv is None else argv
    if "--self-test" in argv:
        return self_test()
    base_dir = base_dir or os.path.dirname(os.path.abspath(__file__))
    try:
        return run(config_from_globals(config), argv, base_dir)
    except HarnessError as e:
        print("%s: %s" % (HARNESS_NAME, e), file=sys.stderr)
        return e.exit_code


# ----------------------------------------------------------------------------------------------
# Self-test of the pure-Python parts: plain python3, no torch, no GPU.

def hooks_self_test(check):
    """hooks_fingerprint: what changes it (the hooks and all they reach in the kernel's files) and
    what does not (the kernel's own code and knobs, comments)."""
    import tempfile

    base = {
        "kern.py": (
            "import kern_helpers\n"
            "EPS = 1e-6\n"
            "BLOCK = 128  # a knob only the kernel reads\n"
            "SIZES = {'a': (1, 2)}\n"
            "def _scale(x):\n    return x * 2\n"
            "def forward(x, w):\n    return x * w\n"
            "def make_inputs(shape, dtype, device, gen):\n    return SIZES['a']\n"
            "def reference_forward(x, w):\n    return kern_helpers.ref(_scale(x), w) + EPS\n"),
        "kern_helpers.py": "def ref(x, w):\n    return x * w\n",
    }
    variants = {
        "same": {},
        "kernel and knob edited, a comment added": {"kern.py": base["kern.py"].replace(
            "return x * w\n", "# faster\n    return w * x\n", 1).replace("BLOCK = 128", "BLOCK = 256")},
        "reference edited": {"kern.py": base["kern.py"].replace("+ EPS", "- EPS")},
        "helper edited": {"kern.py": base["kern.py"].replace("return x * 2", "return x * 3")},
        "constant edited": {"kern.py": base["kern.py"].replace("EPS = 1e-6", "EPS = 1e-5")},
        "input table edited": {"kern.py": base["kern.py"].replace("(1, 2)", "(1, 1)")},
        "hook added": {"kern.py": base["kern.py"] + "def bytes_moved(shape, i, o, d):\n    return 1\n"},
        "helper file edited": {"kern_helpers.py": "def ref(x, w):\n    return x * w * 1.0\n"},
    }
    prints = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, (what, edits) in enumerate(variants.items()):
            d = os.path.join(tmp, str(k))
            os.makedirs(d)
            for name, text in dict(base, **edits).items():
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            sys.modules.pop("kern_helpers", None)
            saved = list(sys.path)
            try:
                module = load_kernel_module(os.path.join(d, "kern.py"), d)
                prints[what] = hooks_fingerprint(module)
            finally:
                sys.path[:] = saved
                sys.modules.pop("kern_helpers", None)
                sys.modules.pop("kopt_kernel_kern", None)
    first = hooks_fingerprint(types.SimpleNamespace(__name__="empty"))
    check(len(first) == 64 and first == hooks_fingerprint(types.SimpleNamespace(__name__="empty")),
          "a module without hooks has one fingerprint")
    check(prints["same"] == prints["kernel and knob edited, a comment added"],
          "the kernel's own code, a knob only it reads and a comment leave the hooks' fingerprint alone")
    for what in ("reference edited", "helper edited", "constant edited", "input table edited", "hook added",
                 "helper file edited"):
        check(prints[what] != prints["same"], "hooks fingerprint changes: " + what)

    if torch is not None:  # a module-level tensor the hooks read counts by its contents
        tab = types.ModuleType("kopt_kernel_table")
        exec("import torch\nW = torch.ones(4)\ndef make_inputs(shape, dtype, device, gen):\n    return W\n", tab.__dict__)
        before = hooks_fingerprint(tab)
        tab.W[0] = 0.0
        check(hooks_fingerprint(tab) != before, "hooks fingerprint changes: a tensor the hooks read")
    # a kernel that rebinds a hook or changes what it reads after loading ends the run
    mod = types.ModuleType("kopt_kernel_rebinding")
    exec("SIZES = {'a': 1}\ndef make_inputs(shape, dtype, device, gen):\n    return SIZES['a']\n", mod.__dict__)
    holder = types.SimpleNamespace(module=mod)
    taken = hooks_fingerprint(mod)
    assert_hooks_intact(holder, taken, {}, "in the self-test")  # unchanged: nothing raised
    for change in (lambda: mod.SIZES.update(a=2), lambda: setattr(mod, "make_inputs", lambda *a: 2)):
        change()
        try:
            assert_hooks_intact(holder, taken, {}, "in the self-test")
            check(False, "a hook changed after loading must end the run")
        except TamperError as e:
            check("changed in the self-test" in str(e), "the tamper message says when")


def bytes_self_test(check):
    """The default bytes a call moves (no bytes_moved hook), through a real ShapeBench on the CPU:
    forward reads its inputs and writes its outputs; only backward reads a grad_out. The forward
    count once took the slot's grad_out too, half as much again for an elementwise op, enough to
    put an honest kernel near its bandwidth over the device's ceiling."""
    import tempfile

    source = ("import torch\n"
              "def make_inputs(shape, dtype, device, gen):\n"
              "    return (torch.randn(shape['M'], shape['N'], generator=gen).to(dtype),)\n"
              "def forward(x):\n    return x * 2\n"
              "def reference_forward(x):\n    return x.float() * 2\n"
              "def backward(x, g):\n    return (g * 2,)\n")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "double.py")
        with open(path, "w") as f:
            f.write(source)
        cfg = {"BACKEND": "TORCH", "BACKEND_ENV": "", "KIND": "memory", "KERNEL_MODULE": path, "FORWARD": "forward",
               "BACKWARD": "backward", "INPUT_DTYPE": "bf16", "CHECK": "bf16", "SHAPES": [("d", 1, 8, 64)]}
        shapes = validate_config(cfg)
        op, err = load_op(cfg, folder, CpuDevice(), torch.bfloat16, shapes)
        check(op is not None, "bytes: the doubling op loads (%s)" % err)
        if op is None:
            return
        sb = ShapeBench(op, shapes[0], 3, "bf16")
        for d in sb.directions:
            sb.run_batch(d, 2, keep=False)
        tensor = 8 * 64 * 2  # one bf16 8 x 64 tensor
        check(sb.nbytes["forward"] == 2 * tensor, "bytes: forward moves x and y, not the slot's grad_out (%s)"
              % sb.nbytes["forward"])
        check(sb.nbytes["backward"] == 3 * tensor, "bytes: backward moves x, grad_out and dx (%s)" % sb.nbytes["backward"])


def autotune_self_test(check):
    """The autotune pin without Triton: a fake Autotuner type, trees in a temporary folder, and two
    pins of one tree in this process (flock locks of two open() calls exclude each other as two
    processes' do)."""
    import tempfile

    class FakeConfig:
        def __init__(self, text):
            self.text = text

        def __str__(self):
            return self.text

    class FakeAutotuner:
        def __init__(self, name):
            self.base_fn = types.SimpleNamespace(__name__=name)
            self.cache, self.best_config, self.cache_results = {}, None, False

        def run(self, key, text):  # tunes (or loads) once per key, as Triton's run does
            if key not in self.cache:
                self.cache[key] = FakeConfig(text)
            self.best_config = self.cache[key]

    with tempfile.TemporaryDirectory() as tmp:
        def tree(name, files):
            root = os.path.join(tmp, name)
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            return root
        files = {"k.py": "import triton\n@triton.autotune\ndef k(): pass\n", "sub/h.py": "EPS = 1e-6\n"}
        a, b = tree("a", files), tree("b", files)
        tree("b", {".kopt/campaigns/x/quick_test_bench.py": "# a campaign's copy\n", "__pycache__/k.py": "x = 1\n",
                   "notes.txt": "not python\n"})
        check(kernel_tree_digest(a)[0] == kernel_tree_digest(b)[0] and kernel_tree_digest(a)[1] == 2,
              "autotune: two trees with the same .py files share a digest (hidden folders, caches, other files ignored)")
        check(kernel_tree_digest(a, "H100")[0] != kernel_tree_digest(a, "H200")[0], "autotune: the device is in the digest")
        tree("b", {"sub/h.py": "EPS = 1e-5\n"})
        check(kernel_tree_digest(a)[0] != kernel_tree_digest(b)[0], "autotune: one changed .py file, another digest")
        import shutil
        import subprocess
        if shutil.which("git"):  # a checkout: what git would commit, an ignored file left out
            g = tree("g", {**files, ".gitignore": "gen_*.py\n", "gen_table.py": "T = 1\n"})
            subprocess.run(["git", "init", "-q", g], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            check(kernel_tree_files(g) == ["k.py", "sub/h.py"] and kernel_tree_digest(g)[0] == kernel_tree_digest(a)[0],
                  "autotune: in a git tree the ignored files are not part of it: %r" % kernel_tree_files(g))
        cfg = {"KERNEL_MODULE": os.path.join(a, "k.py")}
        check(kernel_tree_root(cfg, tmp) == os.path.realpath(a) and kernel_tree_root({**cfg, "REPO_ROOT": b}, tmp)
              == os.path.realpath(b), "autotune: the tree is REPO_ROOT, else the kernel module's folder")
        root = os.path.join(tmp, "cache")
        env = {AUTOTUNE_CACHE_ENV: root, "TRITON_CACHE_DIR": "/mine"}
        check(not AutotunePin.before_import(cfg, tmp, "GPU", environ=dict(env), has_triton=False).active,
              "autotune: without Triton the pin is off")
        off = {AUTOTUNE_CACHE_ENV: "off"}
        check(not AutotunePin.before_import(cfg, tmp, "GPU", environ=off, has_triton=True).active and off == {
            AUTOTUNE_CACHE_ENV: "off"}, "autotune: KOPT_AUTOTUNE_CACHE_DIR=off leaves the environment alone")
        check(autotune_cache_root({"XDG_CACHE_HOME": "/c"}) == "/c/kopt/triton-autotune", "autotune: the default root")
        # a module without an autotuner: the environment comes back as it was
        plain = types.ModuleType("kopt_plain_kernel")
        plain_env = dict(env)
        pin = AutotunePin.before_import(cfg, tmp, "GPU", environ=plain_env, has_triton=True)
        check(pin.active and plain_env["TRITON_CACHE_DIR"].startswith(root) and plain_env["TRITON_CACHE_AUTOTUNING"] == "1",
              "autotune: before the import Triton's cache points at the tree's folder")
        pin.attach(plain, FakeAutotuner, environ=plain_env)
        check(not pin.active and plain_env == env, "autotune: no autotuner, no change: %r" % plain_env)
        with pin.first_use("s1"):
            pass
        check(pin.chosen == {} and pin.reply_field("s1") is None, "autotune: an inactive pin records nothing")
        # two processes of one tree: the first use of a shape is serialized, both read one config
        mod = types.ModuleType("kopt_fake_tuned")
        mod.kernel = FakeAutotuner("_bwd")
        env1, env2 = dict(env), dict(env)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            p1 = AutotunePin.before_import(cfg, tmp, "GPU", environ=env1, has_triton=True).attach(mod, FakeAutotuner, env1)
            mod2 = types.ModuleType("kopt_fake_tuned2")
            mod2.kernel = FakeAutotuner("_bwd")
            p2 = AutotunePin.before_import(cfg, tmp, "GPU", environ=env2, has_triton=True).attach(mod2, FakeAutotuner, env2)
            check(p1.dir == p2.dir == env1["TRITON_CACHE_DIR"] and mod.kernel.cache_results is True,
                  "autotune: one folder per tree, and the disk cache turned on for an autotuner that had it off")
            lock = os.path.join(p1.dir, "kopt-tuning.lock")
            with p1.first_use("s1"):
                mod.kernel.run((4096, 4096), "TILE: 1024, num_warps: 8")
                with _tuning_lock(lock, 0.1) as (waited, held):
                    check(not held and waited >= 100.0, "autotune: a second process waits while the first one tunes")
            with _tuning_lock(lock, 0.1) as (waited, held):
                check(held and waited < 100.0, "autotune: the lock is free once the first use is over")
            with p1.first_use("s1"):
                mod.kernel.run((4096, 4096), "TILE: 2048, num_warps: 4")  # a later use: no lock, nothing new
            with p2.first_use("s1"):
                mod2.kernel.run((4096, 4096), "TILE: 1024, num_warps: 8")  # the cache's choice, loaded
            with p1.first_use("s2"):
                pass  # a shape whose kernel was not autotuned
        check(p1.reply_field("s1") == {"_bwd": "TILE: 1024, num_warps: 8"} == p2.reply_field("s1"),
              "autotune: the shape's config in the reply: %r" % p1.chosen)
        check(p1.reply_field("s2") is None and "s2: no new autotuner entry" in err.getvalue(),
              "autotune: a shape that tuned nothing reports nothing")
        check("autotune: s1: _bwd = TILE: 1024, num_warps: 8; waited" in err.getvalue(),
              "autotune: the stderr line names the kernel and its config: %r" % err.getvalue())


def self_test():
    import tempfile
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    def raises(fn, code, fragment):
        try:
            fn()
        except HarnessError as e:
            return e.exit_code == code and fragment in str(e)
        return False

    # waiting for an idle GPU: probes in microseconds, a fake clock in seconds
    def probes(readings, step_s=0.001):
        seq, now = list(readings), [0.0]

        def probe():
            now[0] += step_s
            return seq.pop(0) if seq else 40.0

        return probe, (lambda: now[0])

    probe, clock = probes([45.0])
    check(wait_until_idle(probe, clock=clock) == (45.0, 1, 0.0, True), "an idle GPU: one probe, no wait")
    probe, clock = probes([9000.0, 3000.0, 60.0])
    last, n, waited, idle = wait_until_idle(probe, clock=clock)
    check((last, n, idle) == (60.0, 3, True) and abs(waited - 2.0) < 1e-6, "a busy GPU: probed until idle")
    probe, clock = probes([9000.0] * 5000, step_s=0.01)
    last, n, waited, idle = wait_until_idle(probe, cap_ms=50.0, clock=clock)
    check(not idle and last == 9000.0 and waited >= 50.0 and n <= 7, "a GPU busy past the cap: not idle, bounded")
    check(wait_until_idle(lambda: None) == (None, 1, 0.0, True), "no device queue: nothing to wait for")

    # numbers
    check(fmt(float("nan")) == "nan" and fmt(-float("nan")) == "nan", "fmt nan")
    check(fmt(float("inf")) == "inf" and fmt(float("-inf")) == "-inf", "fmt inf")
    check(fmt(0.000123456789) == "0.000123457" and fmt(1234567.0) == "1.23457e+06", "fmt %.6g")
    check(fmt_exact(0.1) == "0.1" and float(fmt_exact(1 / 3)) == 1 / 3, "fmt_exact round trip")
    # SNR
    check(snr_db([1.0, 2.0], [1.0, 2.0]) == float("inf"), "snr exact is inf")
    check(math.isnan(snr_db([1.0, 2.0], [1.0, float("nan")])), "snr with NaN output is nan")
    check(abs(snr_db([1.0, 0.0], [1.1, 0.0]) - 20.0) < 1e-9, "snr of 10% error is 20 dB")
    check(snr_db([0.0], [1.0]) == float("-inf"), "snr of zero reference")
    # check classes (contract thresholds)
    check(check_verdict("fp8_e4m3", [25.1, 30.0], True, 0) and not check_verdict("fp8_e4m3", [24.9], True, 0), "e4m3 25 dB")
    check(check_verdict("fp8_e5m2", [20.5], True, 0) and not check_verdict("fp8_e5m2", [19.9], True, 0), "e5m2 20 dB")
    check(check_verdict("fp4", [10.5], True, 0) and not check_verdict("fp4", [float("nan")], True, 0), "fp4 10 dB, nan fails")
    check(not check_verdict("bf16", [90.0], False, 0) and check_verdict("bf16", [9.0], True, 0), "bf16 uses allclose")
    check(not check_verdict("fp32", [200.0], True, 1), "any NaN/Inf fails")
    check(CHECKS["bf16"]["tol"] == 1e-2 and CHECKS["fp32"]["tol"] == 1e-4, "allclose tolerances")
    # statistics
    check(pstddev([1.0, 3.0]) == 1.0 and abs(rsd([1.0, 3.0]) - math.sqrt(2) / 2) < 1e-12, "pstddev / rsd")
    check(median([3.0, 1.0, 2.0]) == 2.0 and median([4.0, 1.0, 2.0, 3.0]) == 2.5, "median")
    clock = [0.0]
    s = Sampler(3, 5, 0.01, 1.0, clock=lambda: clock[0])
    check(s.stop([1.0, 1.0]) is None, "below min samples: continue")
    check(s.stop([1.0, 1.0, 1.0]) == "rsd", "flat samples stop on rsd")
    check(s.stop([1.0, 2.0, 3.0]) is None, "noisy, time left: continue")
    clock[0] = 1.5
    check(s.stop([1.0, 2.0, 3.0]) == "time_cap", "noisy, time spent: time_cap")
    check(s.stop([1.0, 2.0, 3.0, 4.0, 5.0]) == "max_samples", "max_samples")
    # the spin's host estimate: one call that waited out the spin does not grow the next spin
    steady = host_ms_per_call([0.001] * 50, [0.004, 0.004], 50)
    check(abs(steady - (1.0 + 0.004 * 2 / 50 * 1e3)) < 1e-9, "host ms per call: median call + spread checks")
    check(abs(host_ms_per_call([0.001] * 49 + [0.9], [0.004, 0.004, 0.8], 50) - (1.0 + 0.004 * 3 / 50 * 1e3)) < 1e-9,
          "host ms per call ignores a wait behind the spin")
    check(host_ms_per_call([], [], 0) == 0.5, "host ms per call: the prior without calls")
    # flush sizing
    check(flush_bytes(50 << 20, False) == 256 << 20, "H100/H200 L2 -> 256 MB floor")
    check(flush_bytes(200 << 20, False) == 400 << 20, "2x L2 when larger")
    check(flush_bytes(4 << 20, True) == 512 << 20, "MI300 -> 512 MB")
    check(drain_bytes(50 << 20, False) == 100 << 20, "H100/H200 L2 -> a 100 MB drain")
    check(drain_bytes(16 << 20, False) == 64 << 20, "a small L2 -> the 64 MB drain floor")
    check(drain_bytes(4 << 20, True) == flush_bytes(4 << 20, True), "ROCm drains as much as it flushes")
    # the unwritten-output check: what an output held at its end event, against what it holds at its check
    if torch is not None:
        big = torch.arange(2048, dtype=torch.float32)
        picks = _unwritten_picks([((2048,), torch.float32)], 7, torch.device("cpu"))
        snap = _unwritten_snapshot((big,), picks)
        check(float(_unwritten_flag(snap, (big,), picks)) == 0.0, "unwritten: an output left alone passes")
        big[picks[0][:1]] += 1.0  # one sampled element written after the end event
        check(math.isnan(float(_unwritten_flag(snap, (big,), picks))), "unwritten: a write after the end event fails")
        small = torch.full((4,), float("nan"), dtype=torch.bfloat16)  # the poison, never overwritten
        check(math.isnan(float(_unwritten_flag(_unwritten_snapshot((small,)), (small,)))), "unwritten: the poison fails")
        late = torch.zeros(4, dtype=torch.bfloat16)  # a stale finite block, the right values written later
        snap = _unwritten_snapshot((late,))
        late.fill_(1.0)
        check(math.isnan(float(_unwritten_flag(snap, (late,)))), "unwritten: a stale block written later fails")
        # a chunk's calls compared stacked: the same verdicts as one at a time, call by call
        outs = [(torch.arange(2048, dtype=torch.float32) + j, torch.zeros(4, dtype=torch.bfloat16)) for j in range(4)]
        picks2 = picks + [None]
        outs[2][1].fill_(float("nan"))  # call 2: its small output never written (the poison, at both reads)
        snaps = [_unwritten_snapshot(o, picks2) for o in outs]
        outs[1][0][picks[0][5:6]] -= 3.0  # call 1: its large output written after the end event
        flags = _unwritten_flags(list(zip(snaps, outs)), picks2).tolist()
        one_by_one = [float(_unwritten_flag(sn, o, picks2)) for sn, o in zip(snaps, outs)]
        check([math.isnan(f) for f in flags] == [False, True, True, False] == [math.isnan(f) for f in one_by_one],
              "unwritten: a chunk's stacked comparison flags the same calls as the per-call one")
        outs[3][1].resize_(2)  # call 3: its output changed shape after it returned
        flags = _unwritten_flags(list(zip(snaps, outs)), picks2).tolist()
        check([math.isnan(f) for f in flags] == [False, True, True, True], "unwritten: a reshaped output fails its call alone")
        check(_unwritten_flags([]) is None and _unwritten_flags([([None], (3,))]) is None,
              "unwritten: nothing snapshotted, nothing judged")
    # shapes
    g = normalize_shapes([("a", 1, 64, 32, 16), (1, 8, 8, 8), {"label": "c", "B": 2, "M": 4, "N": 4, "K": 4}], "gemm")
    check([x["label"] for x in g] == ["a", "8x8x8", "c"] and g[0]["K"] == 16, "shape forms")
    check(normalize_shapes([(2, 8, 4)], "memory")[0]["label"] == "b2_8x4", "derived batched label")
    check(raises(lambda: normalize_shapes([("a", 1, 2, 3)], "gemm"), 2, "SHAPES[0] has 3 numbers"), "wrong arity named")
    check(raises(lambda: normalize_shapes([("a", 1, 0, 3, 4)], "gemm"), 2, "SHAPES[0].M"), "non-positive dim named")
    check(raises(lambda: normalize_shapes([("a", 1, 2, 3, 4), ("a", 1, 2, 3, 4)], "gemm"), 2, "appears twice"), "dup label")
    check(raises(lambda: normalize_shapes([("a,b", 1, 2, 3, 4)], "gemm"), 2, "without commas"), "comma in label")
    check([x["label"] for x in select_shapes(g, ["c", "a"])] == ["c", "a"], "--shapes order kept")
    check(raises(lambda: select_shapes(g, ["nope"]), 2, "unknown shape label 'nope'"), "unknown label exit 2")
    check(raises(lambda: select_shapes(g, ["a", "a"]), 2, "given twice"), "repeated label")
    # CLI contract
    a = parse_args(["--summary-csv", "x.csv", "--samples", "s.jsonl", "--shapes", "a, c", "--seed", "9"])
    check(a.summary_csv == "x.csv" and a.samples == "s.jsonl" and a.shape_list == ["a", "c"] and a.seed == 9, "CLI")
    check(raises(lambda: parse_args(["--seed", "-1"]), 2, "--seed"), "negative seed")
    check(raises(lambda: parse_args(["--shapes", ","]), 2, "at least one"), "empty --shapes")
    # config
    base = {"BACKEND": BACKEND_PLACEHOLDER, "BACKEND_ENV": "", "KIND": "gemm", "KERNEL_MODULE": "m",
            "FORWARD": "forward", "BACKWARD": "backward", "INPUT_DTYPE": "bf16", "CHECK": "bf16",
            "SHAPES": [("a", 1, 2, 3, 4)]}
    check(raises(lambda: validate_config(base), 2, "placeholder"), "unfilled backend placeholder refused")
    check(raises(lambda: validate_config({**base, "BACKEND": "TRITON", "SHAPES": []}), 2, "SHAPES is empty"), "empty SHAPES")
    check(raises(lambda: validate_config({**base, "BACKEND": "TRITON", "CHECK": "int4"}), 2, "CHECK"), "bad CHECK")
    check(len(validate_config({**base, "BACKEND": "TRITON"})) == 1, "valid config")
    check(raises(lambda: validate_config({**base, "BACKEND": "TRITON", "DEVICE": "tpu"}), 2, "DEVICE"), "bad DEVICE")
    # the config sidecar (--config)
    with tempfile.TemporaryDirectory() as tmp:
        def sidecar(data, name="bench.json"):
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(data if isinstance(data, str) else json.dumps(data))
            return path
        good = {"kopt_harness_config": 1, "backend": "TRITON", "kind": "memory", "kernel_module": "../k.py",
                "repo_root": "..", "device": "cpu", "shapes": [{"label": "s", "B": 1, "M": 8, "N": 4}]}
        os.makedirs(os.path.join(tmp, "kopt"))
        cfg, folder = load_config_file(sidecar(good, "kopt/bench.json"))
        check(folder == os.path.join(tmp, "kopt") and cfg["KERNEL_MODULE"] == "../k.py", "sidecar: paths relative to it")
        check(cfg["REPO_ROOT"] == os.path.realpath(tmp) and cfg["DEVICE"] == "cpu" and cfg["KIND"] == "memory",
              "sidecar: keys mapped, repo_root resolved")
        check(len(validate_config({**base, **cfg})) == 1, "sidecar: a valid config")
        check(raises(lambda: load_config_file(sidecar("{")), 2, "is not JSON"), "sidecar: bad JSON")
        check(raises(lambda: load_config_file(sidecar([1])), 2, "JSON object"), "sidecar: not an object")
        check(raises(lambda: load_config_file(sidecar({**good, "kopt_harness_config": 2})), 2, "kopt_harness_config"),
              "sidecar: version")
        check(raises(lambda: load_config_file(sidecar({**good, "kernel": "x"})), 2, "unknown key 'kernel'"),
              "sidecar: unknown key named")
        check(raises(lambda: load_config_file(sidecar({k: v for k, v in good.items() if k != "shapes"})), 2,
                     "missing shapes"), "sidecar: missing key named")
        check(raises(lambda: load_config_file(sidecar({**good, "forward": 3})), 2, "\"forward\" must be a string"),
              "sidecar: wrong type named")
        check(raises(lambda: load_config_file(sidecar({**good, "repo_root": "nowhere"})), 2, "repo_root"),
              "sidecar: missing repo_root folder")
        check(raises(lambda: load_config_file(os.path.join(tmp, "absent.json")), 2, "cannot read"), "sidecar: missing file")
        # import isolation: a module this tree holds but that came from elsewhere is refused
        other = os.path.join(tmp, "elsewhere")
        os.makedirs(os.path.join(tmp, "tree", "kpkg"))
        os.makedirs(os.path.join(other, "kpkg"))
        for d in (os.path.join(tmp, "tree", "kpkg"), os.path.join(other, "kpkg")):
            open(os.path.join(d, "__init__.py"), "w").close()
        sys.path.insert(0, other)
        try:
            importlib.import_module("kpkg")
            check(raises(lambda: check_imports_inside(os.path.join(tmp, "tree")), 2, "pip install -e"),
                  "a tree's package imported from another checkout is refused")
            check_imports_inside(other)  # the same module, checked against the tree it came from: fine
        finally:
            sys.path.remove(other)
            sys.modules.pop("kpkg", None)
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        src = f.read()
    # kopt edits these two lines in place (filled or not, each must exist exactly once at column 0)
    check(sum(1 for l in src.split("\n") if l.startswith('BACKEND = "')) == 1, "exactly one BACKEND line")
    check(sum(1 for l in src.split("\n") if l.startswith("SHAPES = ")) == 1, "exactly one SHAPES line")
    # CSV and samples
    rows = [{"label": "a", "B": 1, "M": 2, "N": 3, "K": 4, "Check": "PASS", "Forward TFLOPS": 1.5,
             "Forward TFLOPS_stddev": 0.01, "Backward TFLOPS": float("nan"), "Backward TFLOPS_stddev": float("nan"),
             "Forward Time (ms)": 0.25, "Backward Time (ms)": float("nan"), "out_snr": float("inf"),
             "da_snr": 40.0, "db_snr": 41.0}]
    text = csv_text("gemm", rows)
    check(text.split("\n")[0] == ",".join(GEMM_COLUMNS), "GEMM header")
    check(text.split("\n")[1] == "a,1,2,3,4,PASS,1.5,0.01,nan,nan,0.25,nan,inf,40,41", "GEMM row")
    check("\r" not in text and text.endswith("\n") and not text.startswith("\ufeff"), "LF, no BOM")
    check(GEMM_COLUMNS == "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,"
          "Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr".split(","), "frozen GEMM schema")
    check(MEMORY_COLUMNS == "label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,"
          "Forward Time (ms),Backward Time (ms),max_abs_err".split(","), "frozen memory schema")
    mrow = {"label": "r", "B": 1, "M": 8, "N": 4, "Check": "FAIL"}
    check(csv_text("memory", [mrow]).split("\n")[1] == "r,1,8,4,FAIL,nan,nan,nan,nan,nan,nan,nan", "memory FAIL row")
    st = samples_text("GPU X", 5, [
        {"label": "a", "direction": "forward", "times": [0.5, 0.25], "stop": "rsd", "flops": 48.0, "bytes": None},
        {"label": "b", "direction": "forward", "times": [], "stop": "rsd", "flops": 1.0, "bytes": None}])
    objs = [json.loads(x) for x in st.strip().split("\n")]
    check(objs[0] == {"kopt_samples": 1, "harness": HARNESS_NAME, "device": "GPU X", "seed": 5}, "samples header")
    check(len(objs) == 2 and objs[1]["times"] == [0.5, 0.25] and objs[1]["unit"] == "ms" and objs[1]["bytes"] is None,
          "samples line (series without times omitted)")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "out.csv")
        write_atomically(p, text)
        check(open(p, newline="").read() == text and os.listdir(d) == ["out.csv"], "atomic write leaves one file")
    # timer integrity
    captured = capture_timers(["time.perf_counter", "time.monotonic", "json.dumps"])
    check(changed_timers(captured) == [], "untouched timers")
    real = time.perf_counter
    try:
        time.perf_counter = lambda: 0.0
        check(changed_timers(captured) == ["time.perf_counter"], "patched perf_counter detected")
        try:
            assert_timers_intact("in the self-test")
            check(False, "assert_timers_intact must raise on a patched perf_counter")
        except TamperError as e:
            check(e.exit_code == 3 and "time.perf_counter" in str(e), "tamper error names the function")
    finally:
        time.perf_counter = real
    check(changed_timers(captured) == [], "restored timer is clean again")

    class Fake:
        def elapsed_time(self, other):
            return 1.0
    sys.modules["kopt_fake_timer_mod"] = type(sys)("kopt_fake_timer_mod")
    sys.modules["kopt_fake_timer_mod"].Event = Fake
    cap = capture_timers(["kopt_fake_timer_mod.Event.elapsed_time"])
    Fake.elapsed_time = lambda self, other: 0.001
    check(changed_timers(cap) == ["kopt_fake_timer_mod.Event.elapsed_time"], "patched class method detected")
    del sys.modules["kopt_fake_timer_mod"]

    # worker protocol: request parsing and validation
    def refused(line, fragment, rid=None):
        try:
            parse_request(line)
        except RequestError as e:
            return fragment in str(e) and e.rid == rid
        return False
    check(parse_request('{"id":1,"op":"hello","protocol":1}') == (1, "hello", {}), "hello parsed")
    check(parse_request('{"id":2,"op":"prepare","shape":"s1","seed":"18446744073709551615"}')
          == (2, "prepare", {"shape": "s1", "seed": (1 << 64) - 1, "sizing": True}), "prepare with a 64-bit seed string")
    check(parse_request('{"id":2,"op":"prepare","shape":"s1","seed":"1","sizing":false}')[2]["sizing"] is False,
          "prepare without the sizing batch")
    check(refused('{"id":2,"op":"prepare","shape":"s1","seed":"1","sizing":"no"}', "'sizing' must be true or false", 2),
          "a sizing that is not a boolean refused")
    check(parse_request('{"id":3,"op":"batch","shape":"s1","calls":16,"seed":"0"}')[2] == {"shape": "s1", "seed": 0, "calls": 16},
          "batch parsed")
    check(parse_request('{"id":4,"op":"row","shape":"s1"}') == (4, "row", {"shape": "s1"}), "row parsed")
    check(parse_request('{"id":5,"op":"quit"}') == (5, "quit", {}), "quit parsed")
    check(refused("not json", "not JSON"), "non-JSON line refused without an id")
    check(refused("[1,2]", "JSON object"), "a JSON array refused")
    check(refused('{"id":7,"op":"launch"}', "unknown op", 7), "unknown op refused with its id")
    check(refused('{"id":7}', "unknown op", 7), "missing op refused")
    check(refused('{"id":8,"op":"hello","protocol":2}', "protocol 1", 8), "other protocol refused")
    check(refused('{"id":8,"op":"hello","protocol":true}', "integer", 8), "boolean protocol refused")
    check(parse_request('{"id":3,"op":"warm","shape":"s1","seed":"7"}') == (3, "warm", {"shape": "s1", "seed": 7}),
          "warm with its shape and seed")
    check(refused('{"id":3,"op":"warm","seed":"7"}', "warm needs 'shape'", 3), "warm without a shape refused")
    check(refused('{"id":9,"op":"prepare","shape":"s1","seed":12}', "decimal string", 9), "numeric seed refused")
    check(refused('{"id":9,"op":"prepare","shape":"s1","seed":"-1"}', "decimal string", 9), "negative seed refused")
    check(refused('{"id":9,"op":"prepare","shape":"s1","seed":"1e3"}', "decimal string", 9), "float seed refused")
    check(refused('{"id":9,"op":"prepare","shape":"s1","seed":"18446744073709551616"}', "2^64", 9), "2^64 refused")
    check(refused('{"id":9,"op":"prepare","shape":"","seed":"1"}', "shape label", 9), "empty shape refused")
    check(refused('{"id":9,"op":"batch","shape":"s1","seed":"1","calls":0}', "calls", 9), "zero calls refused")
    check(refused('{"id":9,"op":"batch","shape":"s1","seed":"1","calls":2.0}', "calls", 9), "float calls refused")
    check(refused('{"id":9,"op":"batch","shape":"s1","seed":"1"}', "calls", 9), "missing calls refused")
    check(one_line("a\nb\r\n  c") == "a b c" and len(one_line("x" * 5000)) == 600, "one-line errors")
    try:
        reply_line({"id": 1, "ok": True, "t": float("nan")})
        check(False, "a NaN must not go into a reply")
    except ValueError:
        pass
    # worker protocol: the request loop (a scripted handler instead of the measuring Worker)
    lines = iter(['{"id":1,"op":"hello","protocol":1}\n', '\n', '{"id":2,"op":"nope"}\n', 'garbage\n',
                  '{"id":3,"op":"row","shape":"boom"}\n', '{"id":4,"op":"row","shape":"gone"}\n',
                  '{"id":5,"op":"row","shape":"s1"}\n', '{"id":6,"op":"quit"}\n', '{"id":7,"op":"row","shape":"s1"}\n'])
    sent = []

    def fake_handle(op, fields):
        if op == "hello":
            return {"protocol": 1}
        if fields["shape"] == "boom":
            raise ZeroDivisionError("kernel\nexploded")
        if fields["shape"] == "gone":
            raise RequestError("shape 'gone' is not prepared")
        return {"shape": fields["shape"], "row": "s1,1"}
    rc = serve_loop(lambda: next(lines, ""), sent.append, fake_handle)
    replies = [json.loads(x) for x in sent]
    check(rc == 0 and all("\n" not in x for x in sent), "loop exits 0 at quit, one line per reply")
    check([r.get("id") for r in replies] == [1, 2, None, 3, 4, 5, 6], "one reply per request, in order, blank lines skipped")
    check([r["ok"] for r in replies] == [True, False, False, False, False, True, True], "ok flags")
    check(replies[3]["error"] == "ZeroDivisionError: kernel exploded", "a handler exception is a one-line ok:false")
    check(replies[4]["error"] == "shape 'gone' is not prepared", "a RequestError keeps its text")
    check(replies[5] == {"id": 5, "ok": True, "shape": "s1", "row": "s1,1"}, "handler fields merged into the reply")
    check(serve_loop(lambda: "", sent.append, fake_handle) == 0, "EOF exits 0")

    def tampering(op, fields):
        raise TamperError("patched")
    try:
        serve_loop(iter(['{"id":1,"op":"hello","protocol":1}\n']).__next__, sent.append, tampering)
        check(False, "TamperError must end the loop")
    except TamperError:
        pass
    check(parse_args(["--serve", "--device", "cpu"]).serve, "--serve flag")
    hooks_self_test(check)
    autotune_self_test(check)
    if torch is not None:
        bytes_self_test(check)
    # where a shape's batch time went: the slot median joins the split, small times keep 3 digits
    bt = BatchTime()
    bt.add(40.0, 12.0, 3.0, 5.0, 18.0, [6.1, 6.3, 5.9], 2, (1, 3, 2))
    bt.add(38.0, 11.0, 3.0, 4.0, 17.0, [6.2])
    parts = dict(bt.parts())
    check(parts["2 batches"] == 78.0 and parts["joined calls, confirmations and the results read"] == 78.0 - 6.0 - 9.0 - 35.0,
          "batch split sums the batches")
    check(parts.get("device per call slot (median of 4)") == 6.15, "the slot median is over every kept slot")
    check("device per call slot" not in " ".join(k for k, _v in BatchTime().parts()), "no slots, no slot median")
    check(bt.counts() == "calls the device reached before their launch 2, allocator retries 1, cudaMalloc 3, cudaFree 2",
          "starved calls and allocator counts summed: %r" % bt.counts())
    # the spin: from the kernel alone it covers every call's host time; with a measured slot that
    # covers the host's time per call, one call's host time
    sizing = types.SimpleNamespace(host_ms={"forward": 2.0}, device_floor_ms={"forward": 0.05}, slot_floor_ms={})
    check(abs(ShapeBench._spin_ms(sizing, "forward", 4) - (SPIN_FLOOR_MS + SPIN_MARGIN * 7.85)) < 1e-9,
          "spin sized from the kernel alone")
    check(slot_floor_ms([6.0, 7.0], 0) == 5.4, "the slot floor: 0.9 x the least slot")
    check([null_slots(n) for n in (1, 3, 4, 9, 36)] == [2, 2, 3, 4, 11], "null slots: two, and one per four calls")
    check(slot_floor_ms([6.0, 7.0], 1) is None and slot_floor_ms([], 0) is None,
          "no slot floor from a batch in which the device waited, or without slots")
    sizing.slot_floor_ms["forward"] = 5.4
    check(abs(ShapeBench._spin_ms(sizing, "forward", 4) - (SPIN_FLOOR_MS + SPIN_MARGIN * 2.0)) < 1e-9,
          "spin sized from the slot")
    sizing.slot_floor_ms["forward"] = 1.0
    check(abs(ShapeBench._spin_ms(sizing, "forward", 4) - (SPIN_FLOOR_MS + SPIN_MARGIN * 5.0)) < 1e-9,
          "a slot shorter than the host's time per call still lengthens the spin with the calls")
    # timing streams per shape: all 16 unless one batch's memory times 16 passes an eighth of the card
    gib = 1 << 30
    check(timing_streams_within(0, 80 * gib, 16) == 16 and timing_streams_within(5 * gib, 80 * gib, 1) == 1,
          "no need measured, or one stream: nothing to bound")
    check(timing_streams_within(gib // 4, 80 * gib, 16) == 16, "a small batch keeps all 16 streams")
    check(timing_streams_within(int(2.5 * gib), 80 * gib, 16) == 4, "2.5 GB a batch on an 80 GB card: 4 streams")
    check(timing_streams_within(int(2.5 * gib), 141 * gib, 16) == 7, "the same on a 141 GB card: 7 streams")
    check(timing_streams_within(20 * gib, 80 * gib, 16) == 1, "a batch above the share still gets one stream")
    # the worker's share of the device's memory (KOPT_WORKERS_ON_DEVICE), and what comes out of it
    check(workers_on_device({}) == 2 and workers_on_device({WORKERS_ENV: "6"}) == 6, "workers: unset is a look's two")
    check(workers_on_device({WORKERS_ENV: "0"}) is None and workers_on_device({WORKERS_ENV: "x"}) is None,
          "workers: not a positive integer")
    check(abs(memory_share(60 * gib, 6) - 9 * gib) < 1, "six workers on 60 GB free: 9 GB each, 10 % left over")
    check(timing_streams_within(int(2.5 * gib), 80 * gib, 16, memory_share(60 * gib, 2)) == 4,
          "two workers: the card's eighth still binds")
    check(timing_streams_within(int(2.5 * gib), 80 * gib, 16, memory_share(60 * gib, 6)) == 1,
          "six workers: at most half of a 9 GB share for the streams, 1 stream of 2.5 GB")
    # a batch the harness's own evidence says was disturbed is run again; slow times are no evidence
    check(spoiled_cause((0, 0, 0), [0.4, 0.5, 9.0]) == "", "slow calls do not spoil a batch")
    check("retries 1, cudaMalloc 33, cudaFree 37" in spoiled_cause((1, 33, 37), [0.4]), "allocator events named")
    check("cudaMalloc 1" in spoiled_cause((0, 1, 0), [0.4]), "one cudaMalloc spoils it")
    check("-0.011488 ms" in spoiled_cause((0, 0, 0), [0.4, -0.011488]), "a negative time is named")
    check("nan ms" in spoiled_cause((0, 0, 0), [float("nan")]) and spoiled_cause((0, 0, 0), [0.0]) != "",
          "a time that is not positive and finite spoils it")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        _log_times("batches s1", [("a", 1234.4), ("b", 0.0521), ("c", None)], "d 3")
    check(err.getvalue().endswith("time: batches s1: a 1234 ms, b 0.0521 ms, d 3\n"), "time line formats: %r" % err.getvalue())

    if failures:
        for f in failures:
            print("self-test FAILED: %s" % f, file=sys.stderr)
        return 1
    print("%s self-test: ok" % HARNESS_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
