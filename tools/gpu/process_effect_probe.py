#!/usr/bin/env python3
"""Where does the per-process offset of small memory-bound kernels come from? (issue 11)

On the H200 two worker processes running the same RMSNorm read up to 3 % apart for their whole
lives (docs/gpu-validation.md), so kopt falls back to process means and cannot reach a 2 % MDE.
Two A/A experiments, the same batches and block order as kopt (ABBA, 20 ms batches), tell apart
the two explanations:

  in-process: two ShapeBench of the same shape in ONE process (each its own ring of inputs, with a
      random-size allocation between them so their buffers land elsewhere), rebuilt every rep.
      An offset here that changes from rep to rep is buffer placement.
  processes: two `--serve` workers driven over the worker protocol like kopt does (the idle one
      SIGSTOPped), each pair re-prepared every rep (a new ring). An offset that keeps its value
      across the reps of a pair, and changes between pairs, belongs to the process.

    python3 tools/gpu/process_effect_probe.py kernels/triton/rmsnorm_bench.py \
        --shapes rms_1k_1k,rms_4k_4k --mode both --out probe.jsonl

--variant: as-shipped, or a patched harness (apply_variant) in both modes.
--mode profile: cProfile of kopt-sized batches per shape (the host side of a batch; stderr).
--mode gpu-profile: torch.profiler of such batches: the operations with the most device time.
--mode join [--variant no-spin]: the distribution of what a device-wide join adds to an event time.

Each output line: mode, pair, rep, shape, direction, the A-minus-B difference of the mean log
batch median in percent, and its standard error over the blocks.
"""
import argparse
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import time

from launch_free_reference import load_bench


def apply_variant(h, variant, seed):
    """Monkeypatches the harness for one experiment variant:
      replace-ring: before every batch, free the shape's ring and build it again behind a random-size
                    allocation, so its buffers land elsewhere in device memory batch by batch;
      replace-pages: before every timed batch, hand every cached segment back to the driver
                    (torch.cuda.empty_cache), then build the ring again behind a random-size
                    allocation and refill the timing streams' caches untimed: replace-ring rebuilt
                    it inside torch's cache, whose segments (and the physical pages behind them) a
                    process keeps for life, so it left that placement untested (eighteenth session);
      replace-flush: before every batch, allocate the L2 flush buffer again behind a random-size
                    allocation (the harness allocates it once per process);
      recalibrate:  measure the spin's clock rate and the join's cost again at every prepare (once per
                    process as shipped): an offset that then changes from rep to rep is the calibration;
      long-spin:    four times the spin margin, at least 2 ms: an offset that then vanishes is the GPU
                    waiting for the host (idle gaps, clocks) inside a batch;
      reload-code:  at every prepare, drop Triton's in-memory kernels, so the next launch loads the
                    compiled module again (from the disk cache) at a new place in device memory:
                    an offset that then changes from rep to rep is where the kernel's code sits
                    (the flush evicts it from the L2 before every timed call);
      reload-every-batch: reload-code before every timed batch (then one untimed call pays the
                    load): if the code's place is the offset, it becomes batch-to-batch noise that
                    the blocks average, and the pairs' A-minus-B means should agree;
      read-flush:   flush the L2 by reading the flush buffer (clean lines) instead of zeroing it
                    (dirty lines, written back during the timed call); the harness reads since the
                    ninth session, so this is as-shipped there."""
    import torch
    rng = random.Random(seed)
    if variant in ("replace-ring", "replace-ring+read-flush"):
        original = h.ShapeBench.run_batch

        def run_batch(self, direction, calls, seed=None, keep=True):
            self.ring = None
            pad = torch.empty(rng.randint(1, 256) << 20, dtype=torch.uint8, device="cuda")
            self._build_ring()
            del pad
            return original(self, direction, calls, seed=seed, keep=keep)

        h.ShapeBench.run_batch = run_batch
    if variant == "replace-pages":
        original_pages = h.ShapeBench.run_batch

        def run_batch_new_pages(self, direction, calls, seed=None, keep=True):
            if keep:  # the warm-up batches measure the streams' need first
                self.ring = None
                torch.cuda.empty_cache()
                pad = torch.empty(rng.randint(1, 256) << 20, dtype=torch.uint8, device="cuda")
                self._build_ring()
                self.dev.spread_first_use(self.stream_need, self.timing_streams)
                del pad
            return original_pages(self, direction, calls, seed=seed, keep=keep)

        h.ShapeBench.run_batch = run_batch_new_pages
    if variant == "replace-flush":
        original_flush = h.ShapeBench.run_batch

        def run_batch_new_flush(self, direction, calls, seed=None, keep=True):
            pad = torch.empty(rng.randint(1, 256) << 20, dtype=torch.uint8, device="cuda")
            self.dev.flush_buf = torch.empty_like(self.dev.flush_buf)  # elsewhere; the old one is freed
            del pad
            return original_flush(self, direction, calls, seed=seed, keep=keep)

        h.ShapeBench.run_batch = run_batch_new_flush
    if variant == "recalibrate":
        original_init = h.ShapeBench.__init__

        def init_recalibrated(self, op, shape, seed, check_class):
            op.device._cycles_per_ms = None  # the spin's cycles per ms and the join's cost, measured again
            original_init(self, op, shape, seed, check_class)

        h.ShapeBench.__init__ = init_recalibrated
    if variant == "long-spin":
        h.SPIN_MARGIN = 4 * h.SPIN_MARGIN  # the GPU never catches up with the host within a batch
        h.SPIN_FLOOR_MS = 2.0
    if variant == "reload-code":
        original_init_reload = h.ShapeBench.__init__

        def init_reloaded(self, op, shape, seed, check_class):
            print("probe: reload-code dropped %d compiled kernels" % drop_triton_kernels(), file=sys.stderr)
            original_init_reload(self, op, shape, seed, check_class)

        h.ShapeBench.__init__ = init_reloaded
    if variant == "reload-every-batch":
        original_batch_reload = h.ShapeBench.run_batch

        def run_batch_reloaded(self, direction, calls, seed=None, keep=True):
            if keep:  # a timed batch: the code loaded anew, then one untimed call pays the load
                drop_triton_kernels()
                slot = self._refill(1)[0]
                if direction == "forward":
                    self.op.forward(slot[:self.n_in])
                else:
                    self.op.prepare_backward(slot[:self.n_in], slot[self.n_in:])()
                self.dev.synchronize()
            return original_batch_reload(self, direction, calls, seed=seed, keep=keep)

        h.ShapeBench.run_batch = run_batch_reloaded
    if variant in ("read-flush", "replace-ring+read-flush"):
        sink = {}

        def cold(self):
            sink["x"] = self.flush_buf.max()

        h.Device.cold = cold


def drop_triton_kernels():
    """Empties the per-device kernel caches of every live Triton JITFunction (the compiled kernels
    stay on disk), so the next launch loads its module anew. Returns how many kernels were dropped."""
    import gc
    from triton.runtime.jit import JITFunction
    dropped = 0
    for obj in gc.get_objects():
        if not isinstance(obj, JITFunction):
            continue
        for caches in list(getattr(obj, "device_caches", {}).values()):
            for part in (caches if isinstance(caches, tuple) else (caches,)):
                if isinstance(part, dict) and part:
                    dropped += len(part)
                    part.clear()
    return dropped


def block_order(index):
    return "ABBA" if index % 2 == 0 else "BAAB"


def diff_line(mode, pair, rep, shape, direction, blocks, extra=None):
    """blocks: per block {"A": [times], "B": [times]} -> the A-minus-B line."""
    d = [math.log(statistics.median(b["A"])) - math.log(statistics.median(b["B"])) for b in blocks]
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    line = {"mode": mode, "pair": pair, "rep": rep, "shape": shape, "direction": direction,
            "a_minus_b_pct": round(100 * statistics.mean(d), 3), "se_pct": round(100 * se, 3),
            "median_a_ms": round(statistics.median(t for b in blocks for t in b["A"]), 5), "blocks": len(d)}
    line.update(extra or {})
    print(json.dumps(line), flush=True)
    return line


def in_process(opts, bench, base_dir):
    import torch
    h = bench.harness
    apply_variant(h, opts.variant, opts.seed)
    cfg = dict(bench.CONFIG)
    shapes = {s["label"]: s for s in h.validate_config(cfg)}
    device = h.Device()
    dtype = h.torch_dtype(cfg["INPUT_DTYPE"], device.is_rocm, device.arch)
    op, error = h.load_op(cfg, base_dir, device, dtype, list(shapes.values()))
    if op is None:
        raise SystemExit("the kernel module did not load: %s" % error)
    rng = random.Random(opts.seed)
    lines = []
    for label in opts.shapes:
        for rep in range(opts.reps):
            pads, arms = [], {}
            for arm in "AB":
                pads.append(torch.empty(rng.randint(1, 512) << 20, dtype=torch.uint8, device="cuda"))
                sb = h.ShapeBench(op, shapes[label], rng.getrandbits(62), cfg["CHECK"])
                assert sb.passed, "%s: the correctness check failed" % label
                step = sum(sb.warmup(d, 10) for d in sb.directions)
                arms[arm] = (sb, step)
            calls = max(3, min(4096, round(opts.batch_ms / arms["B"][1])))
            per_dir = {d: [] for d in arms["A"][0].directions}
            for i in range(opts.blocks):
                got = {d: {"A": [], "B": []} for d in per_dir}
                for arm in block_order(i):
                    sb = arms[arm][0]
                    for k, d in enumerate(sb.directions):
                        got[d][arm] += sb.run_batch(d, calls, seed=rng.getrandbits(62) + k, keep=False)["times"]
                for d in per_dir:
                    per_dir[d].append(got[d])
            for d, blocks in per_dir.items():
                lines.append(diff_line("in-process", 0, rep, label, d, blocks, {"calls": calls, "variant": opts.variant}))
            for sb, _ in arms.values():
                sb.release()
            del arms, pads
            torch.cuda.empty_cache()
    return lines


class ServeWorker:
    def __init__(self, bench_path, name, variant, seed):
        self.name = name
        argv = [sys.executable, os.path.abspath(__file__), bench_path, "--as-worker", "--variant", variant,
                "--seed", str(seed)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open("/tmp/probe-%s.log" % name, "a"),
                                     start_new_session=True)
        self.next_id = 0
        self.stopped = False

    def ask(self, **req):
        if self.stopped:
            os.killpg(self.proc.pid, signal.SIGCONT)
            self.stopped = False
        self.next_id += 1
        req["id"] = self.next_id
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if not reply.get("ok"):
            raise RuntimeError("%s: %s" % (self.name, reply.get("error")))
        return reply

    def stop(self):
        os.killpg(self.proc.pid, signal.SIGSTOP)
        self.stopped = True

    def quit(self):
        self.ask(op="quit")
        self.proc.wait(timeout=60)


def processes(opts, bench_path):
    rng = random.Random(opts.seed + 1)
    lines = []
    for pair in range(opts.pairs):
        workers = {arm: ServeWorker(bench_path, "%s%d" % (arm, pair), opts.variant, opts.seed + 7 * pair + k)
                   for k, arm in enumerate("AB")}
        for w in workers.values():
            w.ask(op="hello", protocol=1)
            w.stop()
        for label in opts.shapes:
            for rep in range(opts.reps):
                step = {}
                for arm in ("AB" if rep % 2 == 0 else "BA"):  # which arm prepares first alternates
                    r = workers[arm].ask(op="prepare", shape=label, seed=str(rng.getrandbits(62)))
                    assert r["check"] == "PASS", r
                    step[arm] = sum(r["call_ms"].values())
                    workers[arm].stop()
                calls = max(3, min(4096, round(opts.batch_ms / step["B"])))
                per_dir = {}
                for i in range(opts.blocks):
                    got = {}
                    for arm in block_order(i):
                        r = workers[arm].ask(op="batch", shape=label, calls=calls, seed=str(rng.getrandbits(62)))
                        workers[arm].stop()
                        assert r["errors"] == 0, r
                        for s in r["series"]:
                            got.setdefault(s["direction"], {"A": [], "B": []})[arm] += s["times_ms"]
                    for d, g in got.items():
                        per_dir.setdefault(d, []).append(g)
                for d, blocks in per_dir.items():
                    lines.append(diff_line("processes", pair, rep, label, d, blocks,
                                           {"calls": calls, "prepared_first": "A" if rep % 2 == 0 else "B",
                                            "variant": opts.variant}))
        for w in workers.values():
            w.quit()
    return lines


def _warmed_shapes(opts, bench, base_dir):
    """Per shape of --shapes: (ShapeBench warmed up as a worker's prepare does, label, the marginal
    cost of a forward + backward step in ms, the calls per batch kopt would size from it)."""
    h = bench.harness
    cfg = dict(bench.CONFIG)
    shapes = {s["label"]: s for s in h.validate_config(cfg)}
    device = h.Device()
    dtype = h.torch_dtype(cfg["INPUT_DTYPE"], device.is_rocm, device.arch)
    op, _error = h.load_op(cfg, base_dir, device, dtype, list(shapes.values()))
    for label in opts.shapes:
        sb = h.ShapeBench(op, shapes[label], opts.seed, cfg["CHECK"])
        step = sum(sb.warmup(d, 10) for d in sb.directions)
        yield sb, label, step, max(3, min(4096, round(opts.batch_ms / step)))


def profile(opts, bench, base_dir):
    """Where a batch's host time goes: cProfile over a few kopt-sized batches per shape."""
    import cProfile
    import io
    import pstats
    import torch
    lines = []
    for sb, label, step, calls in _warmed_shapes(opts, bench, base_dir):
        prof = cProfile.Profile()
        walls = []
        t0 = time.perf_counter()
        prof.enable()
        for i in range(8):
            for d in sb.directions:
                walls.append(sb.run_batch(d, calls, seed=opts.seed + i, keep=False)["wall_ms"])
        prof.disable()
        total = (time.perf_counter() - t0) * 1e3
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(30)
        line = {"mode": "profile", "shape": label, "calls": calls, "step_ms": round(step, 5),
                "batches": len(walls), "mean_wall_ms": round(statistics.mean(walls), 3),
                "mean_handle_ms": round(total / len(walls), 3)}
        print(json.dumps(line), flush=True)
        print(text.getvalue(), file=sys.stderr, flush=True)
        lines.append(line)
        sb.release()
        del sb
        torch.cuda.empty_cache()
    return lines


def join_probe(opts, bench, base_dir):
    """What a join adds to an event time, many times over: spin 1 ms, start event, device-wide
    synchronize, end event (the harness's joined call without a kernel). --variant no-spin keeps
    the runtime's default scheduling instead of the harness's spin-wait request."""
    h = bench.harness
    if opts.variant == "no-spin":
        h._request_spin_wait = lambda is_rocm: False
    device = h.Device()
    times = sorted(device.join_samples(400))
    q = lambda f: round(times[min(len(times) - 1, int(f * len(times)))] * 1e3, 1)  # noqa: E731
    line = {"mode": "join", "variant": opts.variant, "spin_wait": getattr(device, "spin_wait", None),
            "n": len(times), "p50_us": q(0.5), "p90_us": q(0.9), "p99_us": q(0.99), "max_us": round(times[-1] * 1e3, 1)}
    print(json.dumps(line), flush=True)
    return [line]


def gpu_profile(opts, bench, base_dir):
    """Where a batch's device time goes: torch.profiler over a few kopt-sized batches per shape,
    the operations with the most self device time (the harness's checks against the kernel)."""
    import torch
    from torch.profiler import ProfilerActivity, profile as tprofile
    lines = []
    for sb, label, step, calls in _warmed_shapes(opts, bench, base_dir):
        walls = []
        with tprofile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for i in range(4):
                for d in sb.directions:
                    walls.append(sb.run_batch(d, calls, seed=opts.seed + i, keep=False)["wall_ms"])
        rows = []
        for e in prof.key_averages():
            us = getattr(e, "self_device_time_total", None)
            if us is None:
                us = getattr(e, "self_cuda_time_total", 0)
            if us > 0:
                rows.append({"op": e.key[:80], "count": e.count, "device_ms": round(us / 1e3, 3)})
        rows.sort(key=lambda r: -r["device_ms"])
        line = {"mode": "gpu-profile", "shape": label, "calls": calls, "step_ms": round(step, 5),
                "batches": len(walls), "mean_wall_ms": round(statistics.mean(walls), 3),
                "device_ms_total": round(sum(r["device_ms"] for r in rows), 3), "top": rows[:20]}
        print(json.dumps(line), flush=True)
        lines.append(line)
        sb.release()
        del sb
        torch.cuda.empty_cache()
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench")
    ap.add_argument("--shapes", default="rms_1k_1k,rms_4k_4k")
    ap.add_argument("--mode", choices=("in-process", "processes", "both", "profile", "gpu-profile", "join"), default="both")
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--batch-ms", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--variant", default="as-shipped",
                    choices=("as-shipped", "replace-ring", "replace-pages", "replace-flush", "read-flush", "replace-ring+read-flush",
                             "no-spin", "recalibrate", "long-spin", "reload-code", "reload-every-batch"))
    ap.add_argument("--as-worker", action="store_true", help="(internal) serve the worker protocol, patched")
    ap.add_argument("--out")
    opts = ap.parse_args(argv)
    opts.shapes = opts.shapes.split(",")
    bench, base_dir = load_bench(opts.bench)
    if opts.as_worker:
        apply_variant(bench.harness, opts.variant, opts.seed)
        return bench.harness.main(["--serve"], config=bench.CONFIG)
    t0 = time.time()
    lines = []
    if opts.mode in ("in-process", "both"):
        lines += in_process(opts, bench, base_dir)
    if opts.mode == "profile":
        lines += profile(opts, bench, base_dir)
    if opts.mode == "gpu-profile":
        lines += gpu_profile(opts, bench, base_dir)
    if opts.mode == "join":
        lines += join_probe(opts, bench, base_dir)
    if opts.mode in ("processes", "both"):
        lines += processes(opts, os.path.abspath(opts.bench))
    print("probe took %.1f s" % (time.time() - t0), file=sys.stderr)
    if opts.out:
        with open(opts.out, "w") as f:
            f.writelines(json.dumps(x) + "\n" for x in lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
