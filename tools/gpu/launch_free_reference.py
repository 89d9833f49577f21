#!/usr/bin/env python3
"""Issue 11's first figure: what the harness reports for one call against a launch-free reference
timed in the same process, on the same inputs.

    python3 tools/gpu/launch_free_reference.py kernels/triton/matmul_bench.py [--calls 64] [--out ref.jsonl]

For every shape and direction of the bench config: the harness's own timed batch (queued calls,
one start/end event pair per call, L2 flushed before each, and since 2026-12-06 the write-back of
what the call left dirty in the L2 charged to it: Device.drain) gives the median call. Two references
time n x [flush, call] and n x [flush] and take (T(flush + call) - T(flush)) / n, with n sized so
that a run lasts about one 20 ms batch (a longer run heats the GPU and drops its clock):
  queued: eager launches queued behind a spin, one event pair around all n (no per-call events,
          no host launch time, but each kernel's own launch latency on the GPU);
  graph:  the same in one CUDA graph per run (no launch path at all).
The demand (issue 11): the harness within max(3 %, 1 us) of the launch-free queued reference.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys


def load_bench(path):
    """Imports a bench config (matmul_bench.py, rmsnorm_bench.py) without running its main."""
    here = os.path.dirname(os.path.abspath(path))
    if here not in sys.path:
        sys.path.insert(0, here)
    spec = importlib.util.spec_from_file_location("kopt_bench_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, here


def graph_ms(torch, fns, replays):
    """Median over `replays` of one replay of a graph that runs every fn in order."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # capture needs its allocations warmed outside the graph
        for fn in fns:
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for fn in fns:
            fn()
    graph.replay()  # uploads the graph
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    del graph
    return statistics.median(times)


def queued_ms(torch, device, fns, replays):
    """Median over `replays` of one event pair around every fn, all queued behind a spin long
    enough for the host to enqueue them (the start event executes with the work already queued)."""
    for fn in fns:  # warm: allocations and any lazy set-up outside the timed runs
        fn()
    times = []
    for _ in range(replays):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        device.spin(2.0 + 0.2 * len(fns))
        start.record()
        for fn in fns:
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="a bench config such as kernels/triton/matmul_bench.py")
    ap.add_argument("--calls", type=int, default=64, help="calls in the harness's batch (default 64)")
    ap.add_argument("--run-ms", type=float, default=20.0, help="how long one reference run lasts (default 20)")
    ap.add_argument("--replays", type=int, default=7, help="graph replays; the median is kept (default 7)")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--out", help="also write the JSON lines here")
    ap.add_argument("--write-flush", action="store_true",
                    help="flush the L2 by zeroing the flush buffer, as the harness did before it read it: "
                         "the whole L2 left dirty, and its write-back runs during the next call")
    ap.add_argument("--no-drain", action="store_true",
                    help="time the harness's calls without the write-back charge (Device.drain), to tell "
                         "on one card what the charge adds against the reference")
    ap.add_argument("--drain-mb", type=int,
                    help="the harness's drain read (Device.drain) this many MB instead of drain_bytes(): how much "
                         "of a call's write-back a longer read hides, against the reference's flush")
    opts = ap.parse_args(argv)

    bench, base_dir = load_bench(opts.bench)
    h = bench.harness
    import torch

    if opts.write_flush:
        h.Device.cold = lambda self: self.flush_buf.zero_()
    if opts.no_drain:
        h.Device.drains = False  # class-level: the harness then keeps two events per call, no drains
    if opts.drain_mb:
        h.drain_bytes = lambda l2_bytes, is_rocm: opts.drain_mb << 20  # read by Device() below

    cfg = dict(bench.CONFIG)
    shapes = h.validate_config(cfg)
    device = h.Device()
    dtype = h.torch_dtype(cfg["INPUT_DTYPE"], device.is_rocm, device.arch)
    op, error = h.load_op(cfg, base_dir, device, dtype, shapes)
    if op is None:
        print("the kernel module did not load: %s" % error, file=sys.stderr)
        return 1
    lines = []
    for shape in shapes:
        sb = h.ShapeBench(op, shape, opts.seed, cfg["CHECK"])
        if not sb.passed:
            print("%s: the correctness check failed; not timed" % shape["label"], file=sys.stderr)
            continue
        for direction in sb.directions:
            sb.warmup(direction, 10)
            batch = sb.run_batch(direction, opts.calls, keep=False)
            harness_ms = statistics.median(batch["times"])
            n = max(8, min(64, int(round(opts.run_ms / harness_ms))))
            slots = [sb.ring[i % len(sb.ring)] for i in range(n)]
            n_in = sb.n_in
            if direction == "forward":
                calls = [(lambda s=s: op.forward(s[:n_in])) for s in slots]
            else:
                calls = [op.prepare_backward(s[:n_in], s[n_in:]) for s in slots]
            with_call = []
            for call in calls:
                with_call += [device.cold, call]
            flush_only = [device.cold] * n
            queued = (queued_ms(torch, device, with_call, opts.replays)
                      - queued_ms(torch, device, flush_only, opts.replays)) / n
            graph = (graph_ms(torch, with_call, opts.replays) - graph_ms(torch, flush_only, opts.replays)) / n
            diff_ms = harness_ms - queued
            line = {"shape": shape["label"], "direction": direction, "write_flush": opts.write_flush,
                    "drain": h.Device.drains, "drain_mb": device._drain_buf.numel() * 4 >> 20 if h.Device.drains else 0, "harness_calls": opts.calls, "reference_calls": n,
                    "harness_median_ms": round(harness_ms, 5), "queued_reference_ms": round(queued, 5),
                    "graph_reference_ms": round(graph, 5), "diff_us": round(diff_ms * 1e3, 2),
                    "diff_pct": round(100.0 * diff_ms / queued, 2),
                    "within_demand": abs(diff_ms) <= max(0.03 * queued, 0.001),
                    "harness_vs_graph_us": round((harness_ms - graph) * 1e3, 2),
                    "harness_errors": batch["errors"],
                    "charge_us": round(statistics.median(batch["charge_ms"]) * 1e3, 2) if batch["charge_ms"] else 0.0,
                    "null_drain_us": round(batch["null_drain_ms"] * 1e3, 2)}
            lines.append(line)
            print(json.dumps(line), flush=True)
            torch.cuda.empty_cache()
        sb.release()
        del sb
        torch.cuda.empty_cache()
    if opts.out:
        with open(opts.out, "w") as f:
            f.writelines(json.dumps(x) + "\n" for x in lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
