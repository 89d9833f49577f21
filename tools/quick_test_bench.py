#!/usr/bin/env python3
"""kopt quick bench harness for Triton or any torch-callable kernel (CUDA and ROCm).

Copied into a campaign directory by kopt at PREPARE_ENVIRONMENT and frozen at BASELINE. Run as

    python quick_test_bench.py --summary-csv PATH --samples PATH [--shapes L1,L2] [--seed N]

It writes the frozen-schema CSV (GEMM: TFLOPS schema; KIND = "memory": GB/s schema) and the
raw-sample JSON Lines side file (one line per shape and direction, every per-call time in ms).
`python quick_test_bench.py --self-test` checks the pure-Python parts without torch or a GPU.

What it does that the skill's perf_counter template does not (loop-contract section 7):
- device events per call, a device-wide synchronize after each call, host wall time as a sanity
  bound; timer functions captured when this file is imported, before the kernel module is
  imported, and compared again afterwards: a kernel module that replaces
  torch.cuda.Event.elapsed_time / record, torch.cuda.synchronize or time.perf_counter makes the
  run fail (exit 3, no CSV) with a message naming what changed;
- every timed call gets inputs with new contents, from a ring of input sets that are all alive at
  once (so consecutive calls see different addresses); every timed call is verified after its
  events (a Freivalds projection for GEMMs, a per-call reference for memory-bound ops), so
  identity-, address- or shape-keyed caches and deferred work fail instead of winning;
- the reference runs on independent clones, in true fp32 (TF32 off while it runs, whatever the
  kernel module set); outputs are NaN-poisoned before every call (the
  caching allocator's free blocks of the output sizes are filled with NaN); inputs are
  fingerprinted before and after each call, so a kernel that writes into its inputs fails;
- the L2/LLC is flushed before every timed call with a buffer sized to the device (>= 2x L2 and
  >= 256 MB; >= 512 MB on ROCm, whose Infinity Cache is the last level), and persisting-L2 lines
  are reset (cudaCtxResetPersistingL2Cache) where the runtime offers it;
- adaptive sampling: at least MIN_SAMPLES per direction, stop when the relative spread reaches the
  target, or at the per-shape time cap, or at MAX_SAMPLES;
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
import importlib
import importlib.util
import json
import math
import os
import random
import sys
import time

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


def samples_text(device, seed, series):
    """JSON Lines: header object, then one object per (shape, direction) that has samples."""
    head = {"kopt_samples": 1, "harness": HARNESS_NAME, "device": device, "seed": seed}
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
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cuda (CUDA or ROCm GPU, the default) or cpu (tests the harness itself)")
    ap.add_argument("--list-shapes", action="store_true")
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
    "torch._C._CudaEventBase.synchronize",
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


class Device:
    """The GPU and the measurement primitives, all bound to objects captured at import."""

    def __init__(self):
        if torch is None:
            raise HarnessError("torch is not importable; the quick harness needs torch with CUDA or ROCm")
        if not torch.cuda.is_available():
            raise HarnessError("no GPU visible to torch (torch.cuda.is_available() is False)")
        self.dev = torch.device("cuda", torch.cuda.current_device())
        props = torch.cuda.get_device_properties(self.dev)
        self.name = props.name
        self.is_rocm = getattr(torch.version, "hip", None) is not None
        self.arch = getattr(props, "gcnArchName", "") or ""
        self.l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        self.flush_buf = torch.empty(flush_bytes(self.l2, self.is_rocm) // 4, dtype=torch.int32, device=self.dev)
        self._event_cls = _TIMERS["torch.cuda.Event"]
        self._record = _TIMERS["torch.cuda.Event.record"]
        self._elapsed = _TIMERS["torch.cuda.Event.elapsed_time"]
        self._sync = _TIMERS["torch.cuda.synchronize"]
        self._reset_l2 = self._find_reset_persisting_l2()

    def _find_reset_persisting_l2(self):
        """cudaCtxResetPersistingL2Cache from the runtime torch already loaded (pygpubench PR #49).
        ROCm has no persisting-L2 API; returns None there or when the symbol is not found."""
        if self.is_rocm:
            return None
        import ctypes
        candidates = []
        try:
            with open("/proc/self/maps") as f:
                for line in f:
                    path = line.split()[-1] if line.strip() else ""
                    if "libcudart" in path and path not in candidates:
                        candidates.append(path)
        except OSError:
            pass
        candidates += ["libcudart.so", "libcudart.so.12", "libcudart.so.13"]
        for c in candidates:
            try:
                fn = getattr(ctypes.CDLL(c), "cudaCtxResetPersistingL2Cache")
                fn.restype = ctypes.c_int
                return fn
            except (OSError, AttributeError):
                continue
        print("%s: cudaCtxResetPersistingL2Cache not found; persisting-L2 lines are not reset" % HARNESS_NAME,
              file=sys.stderr)
        return None

    def synchronize(self):
        self._sync()

    def free_memory(self):
        free, _total = torch.cuda.mem_get_info(self.dev)
        return free

    def cold(self):
        """Before a timed call: drop persisting-L2 lines, then overwrite the whole L2/LLC."""
        if self._reset_l2 is not None:
            self._reset_l2()
        self.flush_buf.zero_()

    def time_call(self, fn):
        """One call between device events; device-wide sync after it (work on other streams is
        waited for); returns (event ms, host wall ms) and the call's result."""
        start = self._event_cls(enable_timing=True)
        end = self._event_cls(enable_timing=True)
        self._sync()
        h0 = _perf_counter()
        self._record(start)
        result = fn()
        self._record(end)
        self._sync()
        h1 = _perf_counter()
        return self._elapsed(start, end), (h1 - h0) * 1e3, result

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


class CpuDevice:
    """`--device cpu`: the same measurement flow on CPU tensors, for testing the harness itself (and
    kernels' torch reference paths) where there is no GPU. Host timing with the captured
    perf_counter; the cache flush is a 2x-LLC buffer; there is no persisting L2."""

    def __init__(self):
        if torch is None:
            raise HarnessError("torch is not importable; --device cpu still needs torch")
        self.dev = torch.device("cpu")
        self.name = _cpu_model()
        self.is_rocm, self.arch, self.l2 = False, "", 0
        self.flush_buf = torch.empty((64 << 20) // 4, dtype=torch.int32)

    def synchronize(self):
        pass

    def cold(self):
        self.flush_buf.zero_()

    def time_call(self, fn):
        h0 = _perf_counter()
        result = fn()
        ms = (_perf_counter() - h0) * 1e3
        return ms, ms, result

    def free_memory(self):
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 1 << 30

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


def load_kernel_module(spec, base_dir):
    """Import KERNEL_MODULE: a path to a .py file (relative to the harness file) or a module name."""
    if not spec:
        raise HarnessError("KERNEL_MODULE is empty: set it to the kernel's module name or .py path", 2)
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

    # -- inputs
    def make_inputs(self, shape, gen):
        if hasattr(self.module, "make_inputs"):
            return _as_tuple(self.module.make_inputs(dict(shape), self.dtype, self.device.dev, gen))
        B, M, N, K = shape["B"], shape["M"], shape["N"], shape["K"]
        lead = () if B == 1 else (B,)
        a = torch.randn(lead + (M, K), generator=gen, device=self.device.dev, dtype=torch.float32).to(self.dtype)
        b = torch.randn(lead + (K, N), generator=gen, device=self.device.dev, dtype=torch.float32).to(self.dtype)
        return a, b

    def grad_like(self, ref_outs, dtype, gen):
        """grad_out in the candidate's output dtype (the reference's outputs are fp32)."""
        return tuple(torch.randn(o.shape, generator=gen, device=o.device, dtype=torch.float32).to(dtype)
                     for o in ref_outs)

    # -- candidate
    def forward(self, inputs):
        return _as_tuple(self.forward_fn(*inputs))

    def prepare_backward(self, inputs, grads):
        """Returns a zero-argument callable that runs the timed part of the backward pass."""
        if self.backward_fn is not None:
            return lambda: _as_tuple(self.backward_fn(*inputs, *grads))
        leaves = tuple(t.detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs)
        outs = _as_tuple(self.forward_fn(*leaves))

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

    # -- per-call verification (after the events): one SNR per output of the call
    def verify_forward(self, inputs, outs, gen, ref=None):
        with _Precise():
            return self._verify_forward(inputs, outs, gen, ref)

    def verify_backward(self, inputs, grads_out, grads, gen, ref=None):
        with _Precise():
            return self._verify_backward(inputs, grads_out, grads, gen, ref)

    def _verify_forward(self, inputs, outs, gen, ref=None):
        if self.kind == "gemm":
            a, b = (t.float() for t in inputs)
            c = outs[0].float()
            x = torch.randint(0, 2, (b.shape[-1], 1), generator=gen, device=c.device).float() * 2 - 1
            return [_torch_snr(torch.matmul(a, torch.matmul(b, x)), torch.matmul(c, x))]
        return [_torch_snr(r, o) for r, o in zip(ref, outs)]

    def _verify_backward(self, inputs, grads_out, grads, gen, ref=None):
        if self.kind == "gemm":
            a, b = (t.float() for t in inputs)
            g = grads_out[0].float()
            da, db = (t.float() for t in grads[:2])
            x = torch.randint(0, 2, (a.shape[-1], 1), generator=gen, device=a.device).float() * 2 - 1
            y = torch.randint(0, 2, (b.shape[-1], 1), generator=gen, device=a.device).float() * 2 - 1
            s_a = _torch_snr(torch.matmul(g, torch.matmul(b.transpose(-1, -2), x)), torch.matmul(da, x))
            s_b = _torch_snr(torch.matmul(a.transpose(-1, -2), torch.matmul(g, y)), torch.matmul(db, y))
            return [s_a, s_b]
        return [_torch_snr(r, o) for r, o in zip(ref, grads)]


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


def _max_abs_err(current, refs, outs):
    """max(current, max |out - ref|) over the outputs; NaN once any output is non-finite."""
    if math.isnan(current):
        return current
    for r, o in zip(refs, outs):
        if o.numel() == 0:
            continue
        of = o.detach().float()
        if not bool(torch.isfinite(of).all()):
            return float("nan")
        current = max(current, float((of - r.float()).abs().max().item()))
    return current


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


def measure_shape(op, shape, opts, check_class):
    """Checked calls, warm-up, then timed calls with adaptive stopping. Returns (row, series)."""
    dev = op.device
    gen = torch.Generator(device=dev.dev)
    gen.manual_seed(_label_seed(opts.seed, shape["label"]))
    rng = random.Random(_label_seed(opts.seed, shape["label"]))
    row = {"label": shape["label"], **{k: shape[k] for k in shape if k != "label"}}
    spec = CHECKS[check_class]

    # 1. Checked calls on private copies; the reference sees its own clones, computed first and kept
    #    alive so its memory cannot be handed to the candidate's outputs.
    inputs = op.make_inputs(shape, gen)
    ref_out = op.reference_forward(inputs)
    cand_in = tuple(t.detach().clone() for t in inputs)
    fp_before = _fingerprint(cand_in, torch.Generator(device=dev.dev).manual_seed(1))
    out_specs = [(tuple(r.shape), d) for r in ref_out for d in (dtype_of(inputs), torch.float32)]
    dev.poison_allocator(out_specs)
    outs = op.forward(cand_in)
    dev.synchronize()
    f_snrs, f_ok, f_bad, f_err = _compare(check_class, ref_out, outs)
    inputs_intact = _fingerprint(cand_in, torch.Generator(device=dev.dev).manual_seed(1)) == fp_before
    b_snrs, b_ok, b_bad, b_err = [], True, 0, 0.0
    grads_out = op.grad_like(ref_out, outs[0].dtype if outs else dtype_of(inputs), gen) if op.has_backward else ()
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
        inputs_intact = inputs_intact and _fingerprint(
            cand_in + cand_g, torch.Generator(device=dev.dev).manual_seed(2)) == fp_before
    # timed calls poison exactly the shapes and dtypes the candidate returned
    out_specs = [(tuple(o.shape), o.dtype) for o in outs]
    if op.has_backward:
        grad_specs = [(tuple(g.shape), g.dtype) for g in grads]
    if not inputs_intact:
        print("%s: shape %s: the kernel modified its inputs" % (HARNESS_NAME, shape["label"]), file=sys.stderr)
    if f_bad or b_bad:
        print("%s: shape %s: NaN/Inf in the outputs: forward %d, backward %d elements"
              % (HARNESS_NAME, shape["label"], f_bad, b_bad), file=sys.stderr)
    passed = inputs_intact and check_verdict(check_class, f_snrs + b_snrs, f_ok and b_ok, f_bad + b_bad)

    # 2. A ring of input sets, all alive at once (distinct addresses); contents refreshed before
    #    every call, so no call sees inputs an earlier call saw.
    set_bytes = sum(t.numel() * t.element_size() for t in inputs + grads_out) or 1
    free = dev.free_memory()
    ring_n = int(max(2, min(opts.max_samples, 64, (0.10 * free) // set_bytes)))
    ring = [tuple(t.detach().clone() for t in inputs) + tuple(g.detach().clone() for g in grads_out)
            for _ in range(ring_n)]
    n_in = len(inputs)
    bad_calls = 0
    worst = {"forward": [], "backward": []}  # per output: the lowest per-call projection SNR
    worst_abs_err = [0.0]  # memory-bound ops: the largest per-call max |out - ref|
    series = []

    def one_direction(direction, share):
        nonlocal bad_calls
        times = []
        mutated = False
        flops = op.flops(shape, direction)
        nbytes = None
        # warm-up (compiles / autotunes); a random count so the phase cannot be detected by counting
        for w in range(rng.randint(opts.warmup_min, opts.warmup_max)):
            s = ring[w % ring_n]
            if direction == "forward":
                op.forward(s[:n_in])
            else:
                op.prepare_backward(s[:n_in], s[n_in:])()
        dev.synchronize()
        sampler = Sampler(opts.min_samples, opts.max_samples, opts.target_rsd, opts.time_cap_s * share)
        i = 0
        while True:
            reason = sampler.stop(times)
            if reason:
                break
            s = ring[i % ring_n]
            i += 1
            # new contents at the ring slot's addresses, drawn the way the op draws its inputs
            for dst, src in zip(s[:n_in], op.make_inputs(shape, gen)):
                dst.copy_(src)
            for t in s[n_in:]:
                _fill_random_(t, gen)
            ins, gouts = s[:n_in], s[n_in:]
            ref = None
            if op.kind != "gemm":
                ref = op.reference_forward(ins) if direction == "forward" else op.reference_backward(ins, gouts)
            probe_seed = rng.getrandbits(62)
            fp = _fingerprint(s, torch.Generator(device=dev.dev).manual_seed(probe_seed))
            dev.poison_allocator(out_specs if direction == "forward" else grad_specs)
            if direction == "forward":
                call = lambda: op.forward(ins)  # noqa: E731
            else:
                call = op.prepare_backward(ins, gouts)
            dev.cold()
            ms, host_ms, result = dev.time_call(call)
            if ms > host_ms * 1.05 + 0.05:
                # Both events were recorded inside the host window (synchronised on both sides):
                # a device time longer than the wall time around it means the timer is lying.
                raise TamperError("device-event time %.4f ms exceeds the host wall time %.4f ms around the same "
                                  "call (shape %s, %s)" % (ms, host_ms, shape["label"], direction))
            times.append(ms)
            result = _as_tuple(result)
            snrs = (op.verify_forward(ins, result, gen, ref) if direction == "forward"
                    else op.verify_backward(ins, gouts, result, gen, ref))
            if not all(x > spec["call_snr_db"] for x in snrs):
                bad_calls += 1
            w = worst[direction]
            w[:] = [_worse(a, b) for a, b in zip(w, snrs)] if w else list(snrs)
            if ref is not None:
                worst_abs_err[0] = _max_abs_err(worst_abs_err[0], ref, result)
            if _fingerprint(s, torch.Generator(device=dev.dev).manual_seed(probe_seed)) != fp:
                bad_calls += 1
                if not mutated:
                    print("%s: shape %s: a timed %s call modified its inputs" % (HARNESS_NAME, shape["label"], direction),
                          file=sys.stderr)
                mutated = True
            if nbytes is None and op.kind != "gemm":
                nbytes = op.bytes(shape, ins, result, gouts, direction)
        series.append({"label": shape["label"], "direction": direction, "times": times, "stop": reason,
                       "flops": flops, "bytes": nbytes if op.kind != "gemm" else None})
        return times, flops, nbytes

    f_times, f_flops, f_bytes = one_direction("forward", 1.0 / 3.0 if op.has_backward else 1.0)
    if op.has_backward:
        b_times, b_flops, b_bytes = one_direction("backward", 2.0 / 3.0)
    else:
        b_times, b_flops, b_bytes = [], None, None

    if bad_calls:
        print("%s: shape %s: %d timed call(s) failed the per-call check (worst per-call SNR %s dB)"
              % (HARNESS_NAME, shape["label"], bad_calls,
                 fmt(min(worst["forward"] + worst["backward"], key=lambda x: -1e300 if math.isnan(x) else x))),
              file=sys.stderr)
        passed = False
    # The SNR columns report the worst of the full check and every per-call projection.
    f_snrs = [_worse(a, b) for a, b in zip(f_snrs, worst["forward"])] if worst["forward"] else f_snrs
    b_snrs = [_worse(a, b) for a, b in zip(b_snrs, worst["backward"])] if worst["backward"] else b_snrs

    def summarize(times, work, unit_scale):
        if not times:
            return float("nan"), float("nan"), float("nan")
        med = median(times)
        per_call = [work / (t * 1e-3) / unit_scale for t in times]
        return work / (med * 1e-3) / unit_scale, pstddev(per_call), med

    row["Check"] = "PASS" if passed else "FAIL"
    if op.kind == "gemm":
        row["Forward TFLOPS"], row["Forward TFLOPS_stddev"], row["Forward Time (ms)"] = summarize(f_times, f_flops, 1e12)
        row["Backward TFLOPS"], row["Backward TFLOPS_stddev"], row["Backward Time (ms)"] = (
            summarize(b_times, b_flops, 1e12) if b_times else (float("nan"),) * 3)
        row["out_snr"] = f_snrs[0] if f_snrs else float("nan")
        row["da_snr"] = b_snrs[0] if len(b_snrs) > 0 else float("nan")
        row["db_snr"] = b_snrs[1] if len(b_snrs) > 1 else float("nan")
    else:
        row["Forward GB/s"], row["Forward GB/s_stddev"], row["Forward Time (ms)"] = summarize(f_times, f_bytes or 0.0, 1e9)
        row["Backward GB/s"], row["Backward GB/s_stddev"], row["Backward Time (ms)"] = (
            summarize(b_times, b_bytes or 0.0, 1e9) if b_times else (float("nan"),) * 3)
        errs = (f_err, b_err, worst_abs_err[0])
        row["max_abs_err"] = float("nan") if any(math.isnan(e) for e in errs) else max(errs)
    return row, series


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


def validate_config(cfg):
    if cfg["KIND"] not in ("gemm", "memory"):
        raise HarnessError("KIND must be \"gemm\" or \"memory\", got %r" % cfg["KIND"], 2)
    if cfg["CHECK"] not in CHECKS:
        raise HarnessError("CHECK %r is not one of %s" % (cfg["CHECK"], ", ".join(CHECKS)), 2)
    if BACKEND_PLACEHOLDER in str(cfg["BACKEND"]):
        raise HarnessError("BACKEND still holds the placeholder %s: kopt fills it at PREPARE_ENVIRONMENT "
                           "(or set it, e.g. BACKEND = \"TRITON\")" % BACKEND_PLACEHOLDER, 2)
    if not cfg["SHAPES"]:
        raise HarnessError("SHAPES is empty: kopt fills it at BASELINE with the target shapes", 2)
    return normalize_shapes(cfg["SHAPES"], cfg["KIND"])


def run(cfg, argv, base_dir):
    opts = parse_args(argv)
    opts.warmup_min, opts.warmup_max = DEFAULTS["warmup_min"], DEFAULTS["warmup_max"]
    shapes = validate_config(cfg)
    if opts.list_shapes:
        for s in shapes:
            print(s["label"], *[s[d] for d in ("B", "M", "N", "K") if d in s])
        return 0
    shapes = select_shapes(shapes, opts.shape_list)
    kind = cfg["KIND"]
    if cfg["BACKEND_ENV"]:
        os.environ[cfg["BACKEND_ENV"]] = str(cfg["BACKEND"])
    device = Device() if opts.device == "cuda" else CpuDevice()
    dtype = torch_dtype(cfg["INPUT_DTYPE"], device.is_rocm, device.arch)

    # The kernel module is imported only now, after every timer was captured.
    load_error = None
    module = None
    try:
        module = load_kernel_module(cfg["KERNEL_MODULE"], base_dir)
        if callable(cfg.get("KERNEL_HOOK")):
            cfg["KERNEL_HOOK"](module, shapes)
    except HarnessError:
        raise
    except Exception as e:  # the kernel's fault: FAIL rows, not a harness failure
        load_error = "%s: %s" % (type(e).__name__, e)
        print("%s: importing the kernel module failed: %s" % (HARNESS_NAME, load_error), file=sys.stderr)
    assert_timers_intact("after importing the kernel module")
    op = None
    if module is not None:
        try:
            op = Op(cfg, module, device, dtype)
        except HarnessError as e:  # the module lacks a configured function: the kernel's fault
            print("%s: %s" % (HARNESS_NAME, e), file=sys.stderr)

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

    text = csv_text(kind, rows)
    if opts.summary_csv:
        write_atomically(opts.summary_csv, text)
    else:
        sys.stdout.write(text)
    if opts.samples:
        write_atomically(opts.samples, samples_text(device.name, opts.seed, series))
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
    # flush sizing
    check(flush_bytes(50 << 20, False) == 256 << 20, "H100/H200 L2 -> 256 MB floor")
    check(flush_bytes(200 << 20, False) == 400 << 20, "2x L2 when larger")
    check(flush_bytes(4 << 20, True) == 512 << 20, "MI300 -> 512 MB")
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

    if failures:
        for f in failures:
            print("self-test FAILED: %s" % f, file=sys.stderr)
        return 1
    print("%s self-test: ok" % HARNESS_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
