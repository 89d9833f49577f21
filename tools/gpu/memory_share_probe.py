#!/usr/bin/env python3
"""The quick harness's memory share and batch re-runs under an A/A's load, on a GPU machine.

At BASELINE kopt keeps six bench workers on the device at once (three A/A sessions of two arms,
all started together: harness/WORKER-PROTOCOL.md): the running session's two, each with its input
ring and its timing streams' caches, and four spares that have warmed every shape (the full check
once) and wait stopped. On an H100 that filled 80.5 of 81.5 GiB and an honest Triton RMSNorm's
batches met allocator retries. This probe plays that load with the harness's own classes, without
kopt: --role spare warms every shape and waits; --role arm prepares and runs batches of every
shape, as the idle arm of the running session would have, and waits; --role measure prepares every
shape and runs --batches batches of each, then prints one JSON line per shape: the batches'
re-runs (with their causes), errors, the allocator's counts over the kept batches, and the ring
size. Each role holds its memory until it reads EOF on stdin (the shell driver closes it).

    python3 tools/gpu/memory_share_probe.py --role measure --batches 16 [--calls 12]

The shapes are the RMSNorm of kernels/triton/rmsnorm.py at the sizes that failed
(65536x1024, 8192x14336, 4096x4096); KOPT_WORKERS_ON_DEVICE sets the share as kopt would.
tools/gpu/memory_share_probe.sh runs the whole comparison (unset against 6).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "kernels", "triton"))

from bench_common import harness as h  # noqa: E402  (captures the timers before the kernel import)

SHAPES = [("rms_64k_1k", 1, 65536, 1024), ("rms_8k_14k", 1, 8192, 14336), ("rms_4k_4k", 1, 4096, 4096)]
CONFIG = {"BACKEND": "TRITON", "BACKEND_ENV": "", "KIND": "memory",
          "KERNEL_MODULE": os.path.join(HERE, "..", "..", "kernels", "triton", "rmsnorm.py"),
          "FORWARD": "forward", "BACKWARD": "backward", "INPUT_DTYPE": "bf16", "CHECK": "bf16", "SHAPES": SHAPES}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--role", choices=("spare", "arm", "measure"), required=True)
    ap.add_argument("--batches", type=int, default=16)
    ap.add_argument("--calls", type=int, default=12)
    ap.add_argument("--ready", default="", help="a file to create once the role's memory is taken")
    args = ap.parse_args()
    shapes = h.validate_config(CONFIG)
    dev = h.Device()
    op, error = h.load_op(CONFIG, HERE, dev, h.torch_dtype("bf16", dev.is_rocm, dev.arch), shapes)
    if op is None:
        sys.exit("the kernel module did not load: %s" % error)
    w = h.Worker(CONFIG, shapes, dev, op, None)
    seed = 1234567
    for s in shapes:
        label = s["label"]
        if args.role == "spare":
            w.handle("warm", {"shape": label, "seed": seed})
            continue
        p = w.handle("prepare", {"shape": label, "seed": seed})
        n = args.batches if args.role == "measure" else 4
        out = {"shape": label, "workers": dev.workers, "check": p["check"], "batches": 0, "reruns": 0, "causes": [],
               "errors": 0, "failed": ""}
        for i in range(n if p["check"] == "PASS" else 0):
            try:
                b = w.handle("batch", {"shape": label, "calls": args.calls, "seed": seed + 1 + i})
            except h.RequestError as e:
                out["failed"] = str(e)
                break
            out["batches"] += 1
            out["reruns"] += b["reruns"]
            out["errors"] += b["errors"]
            out["causes"] += [c for c in b["problem"].split("; ") if "run again" in c]
        sb = w.benches.get(label)
        if isinstance(sb, h.ShapeBench):
            out["allocator_kept"] = list(sb.batch_time.allocator)
            out["ring_sets"] = len(sb.ring) if sb.ring else 0
            out["timing_streams"] = sb.timing_streams
            out["row_check"] = w.handle("row", {"shape": label})["row"].split(",")[4]
        if args.role == "measure":
            print(json.dumps(out), flush=True)
    dev.synchronize()
    if args.ready:
        open(args.ready, "w").close()
    sys.stdin.read()  # hold the memory until the driver closes stdin
    os._exit(0)


if __name__ == "__main__":
    main()
