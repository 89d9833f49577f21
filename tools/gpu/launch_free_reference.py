#!/usr/bin/env python3
"""Issue 11's first figure: what the harness reports for one call against a launch-free reference
timed in the same process, on the same inputs.

    python3 tools/gpu/launch_free_reference.py kernels/triton/matmul_bench.py [--calls 64] [--out ref.jsonl]

For every shape and direction of the bench config: the harness's own timed batch (queued calls,
one start/end event pair per call, L2 flushed before each) gives the median call; the reference
captures `calls` x [flush, call] in one CUDA graph and `calls` x [flush] in another, replays each
a few times, and takes (T(flush + call) - T(flush)) / calls: no host launch path, no per-call
events. The demand (issue 11): harness within max(3 %, 1 us) of the reference.
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="a bench config such as kernels/triton/matmul_bench.py")
    ap.add_argument("--calls", type=int, default=64, help="calls per harness batch and per graph (default 64)")
    ap.add_argument("--replays", type=int, default=7, help="graph replays; the median is kept (default 7)")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--out", help="also write the JSON lines here")
    opts = ap.parse_args(argv)

    bench, base_dir = load_bench(opts.bench)
    h = bench.harness
    import torch

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
            slots = [sb.ring[i % len(sb.ring)] for i in range(opts.calls)]
            n_in = sb.n_in
            if direction == "forward":
                calls = [(lambda s=s: op.forward(s[:n_in])) for s in slots]
            else:
                calls = [op.prepare_backward(s[:n_in], s[n_in:]) for s in slots]
            with_call = []
            for call in calls:
                with_call += [device.cold, call]
            flush_only = [device.cold] * opts.calls
            ref_ms = (graph_ms(torch, with_call, opts.replays) - graph_ms(torch, flush_only, opts.replays)) / opts.calls
            diff_ms = harness_ms - ref_ms
            line = {"shape": shape["label"], "direction": direction, "calls": opts.calls,
                    "harness_median_ms": round(harness_ms, 5), "graph_reference_ms": round(ref_ms, 5),
                    "diff_us": round(diff_ms * 1e3, 2), "diff_pct": round(100.0 * diff_ms / ref_ms, 2),
                    "within_demand": abs(diff_ms) <= max(0.03 * ref_ms, 0.001),
                    "harness_errors": batch["errors"]}
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
