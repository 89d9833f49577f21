#!/usr/bin/env python3
"""Which part of a timed call carries the per-process offset? (issue 11)

Two worker processes running the same small kernel read 1-5 % apart for their whole lives on the
H200 (docs/gpu-validation.md, sessions 3-13), while two arms inside one process agree. Every probe
so far changed what the kernel touches (inputs, flush buffer, code, spin) and the offset stayed.
This one changes how the call is timed, in P worker processes at once, each block visiting the
workers in a fresh balanced order, and reports for every method the spread of the per-process means
against the within-process standard error:

  shipped  the harness's own run_batch (checks, fingerprints, joined calls): what kopt reads;
  bare     per call: flush, start event, call, end event; no checks (the same timed window);
  empty    per call: flush, start event, end event: the event pair alone, no kernel;
  chain    one event pair around n x [flush, call], minus one around n x [flush], over n
           (launch_free_reference.py's queued reference: no per-call events at all).

If the offset lives in the event pair and the kernel's dispatch behind it (a per-context cost),
`bare` and `empty` keep it and `chain` loses it; if it lives in the kernel's own run, all keep it.
(On the H200 all kept it; `warm` and `touch` below ask about the flush, and `--streams S` times
every method on S streams of each worker: the offset turned out to be the stream's.)

    python3 tools/gpu/timing_method_probe.py kernels/triton/rmsnorm_bench.py \
        --shapes rms_1k_1k,rms_4k_4k --workers 6 --blocks 6 --out probe.jsonl
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

from launch_free_reference import load_bench

METHODS = ("shipped", "bare", "empty", "chain")
# round two (after chain kept the offset): is it the cold start behind the flush?
#   warm   chain with no flush at all: n back-to-back calls, one event pair, over n;
#   touch  chain with, after each flush, one element read every 64 KiB of the call's inputs: their
#          pages' translations warm again, 99.8 % of their lines still cold.
MORE_METHODS = ("warm", "touch", "one-stream")
# round three (the harness now takes its timing streams in turn, one batch each):
#   one-stream  the harness's run_batch as it was before, every batch on the worker's one stream;
#               next to `shipped` in the same workers, it shows what the turn of streams removes.


class ProbeWorker:
    """One worker process's side: the bench's shapes prepared, methods timed on request."""

    def __init__(self, bench_path, shapes, seed, device, n_streams=0):
        bench, base_dir = load_bench(bench_path)
        self.h = h = bench.harness
        cfg = dict(bench.CONFIG)
        by_label = {s["label"]: s for s in h.validate_config(cfg)}
        self.dev = h.Device() if device == "cuda" else h.CpuDevice()  # cpu: the probe's own dry run
        dtype = h.torch_dtype(cfg["INPUT_DTYPE"], self.dev.is_rocm, self.dev.arch)
        self.op, error = h.load_op(cfg, base_dir, self.dev, dtype, list(by_label.values()))
        if self.op is None:
            raise SystemExit("the kernel module did not load: %s" % error)
        self.benches = {}
        for label in shapes:
            sb = h.ShapeBench(self.op, by_label[label], seed, cfg["CHECK"])
            assert sb.passed, "%s: the correctness check failed" % label
            for d in sb.directions:
                sb.warmup(d, 10)
            self.benches[label] = sb
        # --streams: the worker's own CUDA streams; a stream's launches go down one of the
        # context's hardware connections (CUDA_DEVICE_MAX_CONNECTIONS), a per-stream thing a
        # process keeps, like the offset
        self.streams = [h.torch.cuda.Stream() for _ in range(n_streams)] if device == "cuda" else [None] * n_streams

    def _calls(self, sb, direction, n):
        slots = [sb.ring[i % len(sb.ring)] for i in range(n)]
        if direction == "forward":
            return [(lambda s=s: self.op.forward(s[:sb.n_in])) for s in slots]
        return [self.op.prepare_backward(s[:sb.n_in], s[sb.n_in:]) for s in slots]

    def _touches(self, sb, n):
        stride = 65536

        def touch(tensors):
            for t in tensors:
                flat = t.detach().reshape(-1)
                step = max(1, stride // flat.element_size())
                flat[::step].sum()
        return [(lambda s=sb.ring[i % len(sb.ring)]: touch(s)) for i in range(n)]

    def _spin(self, n):
        self.dev.spin(1.0 + 0.3 * n)  # ~0.3 ms of host per call at most: the GPU stays ahead

    def _per_call(self, calls, with_call):
        dev = self.dev
        events = [(dev.event(), dev.event()) for _ in calls]
        dev.synchronize()
        hs = dev.stream()
        self._spin(len(calls))
        for (start, end), call in zip(events, calls):
            dev.cold()
            dev.record(start, hs)
            if with_call:
                call()
            dev.record(end, hs)
        dev.synchronize()
        return statistics.median(dev.elapsed(s, e) for s, e in events)

    def _chain(self, calls, with_call, cold=True, touches=None):
        dev = self.dev
        start, end = dev.event(), dev.event()
        dev.synchronize()
        hs = dev.stream()
        self._spin(len(calls))
        dev.record(start, hs)
        for i, call in enumerate(calls):
            if cold:
                dev.cold()
            if touches:
                touches[i]()
            if with_call:
                call()
        dev.record(end, hs)
        dev.synchronize()
        return dev.elapsed(start, end)

    def measure(self, label, direction, method, n, stream=None):
        if stream is not None and self.streams[stream] is not None:
            with self.h.torch.cuda.stream(self.streams[stream]):
                return self.measure(label, direction, method, n)
        sb = self.benches[label]
        if method == "shipped":
            return statistics.median(sb.run_batch(direction, n, keep=False)["times"])
        if method == "one-stream":
            self.dev.next_timing_stream = lambda count=None: self.dev.stream()  # the caller's: one stream every batch
            try:
                return statistics.median(sb.run_batch(direction, n, keep=False)["times"])
            finally:
                del self.dev.next_timing_stream
        calls = self._calls(sb, direction, n)
        if method in ("bare", "empty"):
            return self._per_call(calls, method == "bare")
        if method == "warm":
            return sum(self._chain(calls, True, cold=False) for _ in range(2)) / (2 * n)
        if method == "touch":
            touches = self._touches(sb, n)
            c1, f1, f2, c2 = (self._chain(calls, w, touches=touches) for w in (True, False, False, True))
            return ((c1 + c2) - (f1 + f2)) / (2 * n)
        # chain: C F F C, so a drift within the measurement cancels
        c1, f1, f2, c2 = (self._chain(calls, w) for w in (True, False, False, True))
        return ((c1 + c2) - (f1 + f2)) / (2 * n)

    def info(self):
        cpu = None
        try:
            with open("/proc/self/stat") as f:
                cpu = int(f.read().rsplit(")", 1)[1].split()[36])
        except (OSError, ValueError, IndexError):
            pass
        return {"pid": os.getpid(), "cpu": cpu, "affinity": sorted(os.sched_getaffinity(0))}


def serve(opts):
    worker = ProbeWorker(opts.bench, opts.shapes, opts.seed, opts.device, opts.streams)
    print(json.dumps({"ok": True, "ready": True}), flush=True)
    calibrated = False
    for line in sys.stdin:
        req = json.loads(line)
        if not calibrated and hasattr(worker.dev, "_cycles_per_ms"):
            # the workers prepared all at once, so the spin's clock was read while others ran: again, alone
            worker.dev._cycles_per_ms = None
            calibrated = True
        if req.get("op") == "quit":
            print(json.dumps({"ok": True, **worker.info()}), flush=True)
            return 0
        value = worker.measure(req["shape"], req["direction"], req["method"], req["n"], req.get("stream"))
        print(json.dumps({"ok": True, "ms": value}), flush=True)
    return 0


def drive(opts):
    rng = random.Random(opts.seed)
    argv = [sys.executable, os.path.abspath(__file__), opts.bench, "--as-worker", "--shapes", ",".join(opts.shapes),
            "--device", opts.device, "--streams", str(opts.streams)]
    procs = []
    cpus = sorted(os.sched_getaffinity(0))
    for k in range(opts.workers):
        # --pin: worker k on one CPU of its own, spread over the machine (a process's CPU is one of
        # the things it keeps for its life)
        pin = (lambda c=cpus[(k * len(cpus)) // opts.workers]: os.sched_setaffinity(0, {c})) if opts.pin else None
        procs.append(subprocess.Popen(argv + ["--seed", str(opts.seed + 101 * k)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=open("/tmp/timing-probe-%d.log" % k, "a"),
                                      text=True, preexec_fn=pin))
    for p in procs:
        assert json.loads(p.stdout.readline())["ready"]

    def ask(p, **req):
        p.stdin.write(json.dumps(req) + "\n")
        p.stdin.flush()
        reply = json.loads(p.stdout.readline())
        assert reply.get("ok"), reply
        return reply

    directions = opts.directions.split(",")
    measure = drive_streams if opts.streams else drive_processes
    lines = measure(opts, procs, ask, rng, directions)
    infos = [ask(p, op="quit") for p in procs]
    for p in procs:
        p.wait(timeout=60)
    print(json.dumps({"workers": infos}), flush=True)
    lines.append({"workers": infos})
    return lines


def drive_processes(opts, procs, ask, rng, directions):
    """Every worker timed once per block by every method, workers in a fresh balanced order per
    block. Reports the spread of worker means against the within-worker SE, per method."""
    lines = []
    for label in opts.shapes:
        for direction in directions:
            got = {m: [[] for _ in procs] for m in opts.methods}  # method -> worker -> per-block log ms
            for block in range(opts.blocks):
                order = list(range(len(procs)))
                rng.shuffle(order)
                if block % 2:
                    order.reverse()
                for k in order:
                    for m in opts.methods:
                        ms = ask(procs[k], shape=label, direction=direction, method=m, n=opts.calls)["ms"]
                        got[m][k].append(math.log(ms) if ms > 0 else float("nan"))
            for m in opts.methods:
                got[m] = [[x for x in v if math.isfinite(x)] for v in got[m]]  # a chain difference can read <= 0
                if any(len(v) < 2 for v in got[m]):
                    print(json.dumps({"shape": label, "direction": direction, "method": m, "skipped": "too few positive readings"}))
                    continue
                means = [statistics.mean(v) for v in got[m]]
                within = [statistics.stdev(v) / math.sqrt(len(v)) for v in got[m]]
                line = {"bench": os.path.basename(opts.bench), "pin": opts.pin, "shape": label, "direction": direction,
                        "method": m, "calls": opts.calls,
                        "median_ms": round(math.exp(statistics.median(x for v in got[m] for x in v)), 6),
                        "worker_means_pct": [round(100 * (x - statistics.mean(means)), 3) for x in means],
                        "between_sd_pct": round(100 * statistics.stdev(means), 3),
                        "within_se_pct": round(100 * statistics.mean(within), 3),
                        "block_sd_pct": round(100 * statistics.mean(statistics.stdev(v) for v in got[m]), 3)}
                line["ratio"] = round(line["between_sd_pct"] / max(line["within_se_pct"], 1e-9), 2)
                lines.append(line)
                print(json.dumps(line), flush=True)
    return lines


def drive_streams(opts, procs, ask, rng, directions):
    """Every (worker, stream) cell timed once per block, cells in a fresh order per block. Reports
    the spread of stream means inside a worker next to that of worker means: if the offset is a
    connection's, streams of one worker differ as much as workers do."""
    lines = []
    cells = [(k, j) for k in range(len(procs)) for j in range(opts.streams)]
    for label in opts.shapes:
        for direction in directions:
            got = {m: {c: [] for c in cells} for m in opts.methods}
            for _block in range(opts.blocks):
                order = list(cells)
                rng.shuffle(order)
                for k, j in order:
                    for m in opts.methods:
                        ms = ask(procs[k], shape=label, direction=direction, method=m, n=opts.calls, stream=j)["ms"]
                        got[m][(k, j)].append(math.log(ms) if ms > 0 else float("nan"))
            for m in opts.methods:
                cell_mean = {c: statistics.mean(v) for c, v in got[m].items()}
                grand = statistics.mean(cell_mean.values())
                worker_means = [statistics.mean(cell_mean[(k, j)] for j in range(opts.streams)) for k in range(len(procs))]
                stream_sd_in_worker = statistics.mean(
                    statistics.stdev([cell_mean[(k, j)] for j in range(opts.streams)]) for k in range(len(procs)))
                within = statistics.mean(statistics.stdev(v) / math.sqrt(len(v)) for v in got[m].values())
                line = {"bench": os.path.basename(opts.bench), "mode": "streams", "streams": opts.streams,
                        "connections": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS", "default"),
                        "shape": label, "direction": direction, "method": m, "calls": opts.calls,
                        "median_ms": round(math.exp(statistics.median(x for v in got[m].values() for x in v)), 6),
                        "cell_means_pct": [[round(100 * (cell_mean[(k, j)] - grand), 3) for j in range(opts.streams)]
                                           for k in range(len(procs))],
                        "stream_sd_in_worker_pct": round(100 * stream_sd_in_worker, 3),
                        "worker_sd_pct": round(100 * statistics.stdev(worker_means), 3),
                        "within_se_pct": round(100 * within, 3)}
                lines.append(line)
                print(json.dumps(line), flush=True)
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench")
    ap.add_argument("--shapes", default="rms_1k_1k,rms_4k_4k")
    ap.add_argument("--directions", default="forward,backward")
    ap.add_argument("--methods", default=",".join(METHODS), help="of %s" % ",".join(METHODS + MORE_METHODS))
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--calls", type=int, default=32)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--pin", action="store_true", help="each worker on one CPU of its own")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help="cpu: a dry run of the probe itself")
    ap.add_argument("--as-worker", action="store_true", help="(internal) one worker process")
    ap.add_argument("--streams", type=int, default=0,
                    help="time each method on this many streams of each worker; reports the spread between streams")
    ap.add_argument("--out")
    opts = ap.parse_args(argv)
    opts.shapes = opts.shapes.split(",")
    opts.methods = opts.methods.split(",")
    unknown = [m for m in opts.methods if m not in METHODS + MORE_METHODS]
    if unknown:
        ap.error("--methods: unknown %s; pick from %s" % (",".join(unknown), ",".join(METHODS + MORE_METHODS)))
    if opts.as_worker:
        return serve(opts)
    t0 = time.time()
    lines = drive(opts)
    print("probe took %.1f s" % (time.time() - t0), file=sys.stderr)
    if opts.out:
        with open(opts.out, "a") as f:
            f.writelines(json.dumps(x) + "\n" for x in lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
