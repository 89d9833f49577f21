#!/usr/bin/env python3
"""Which timing stream each batch of a worker look ran on, and which batches read slow.

The Python harness queues each batch on the next of its worker's 16 timing streams
(Device.next_timing_stream), warm-up batches included, so a batch's stream follows from the look's
records alone: per session, the shapes in order (`*-timing.json`), per shape the warm-up batches
(three per direction when the arm sized the batches, else two: ShapeBench.warmup) and then, per
block, the arm's two batches of forward and backward. This prints, per session, arm, shape and
direction, the batches whose median call is more than --above % over the median of the arm's
batches, with their place in the arm's sequence and their stream index: the seventeenth session's H100 baseline found the same stream
indices slow by 12-15 % in every fresh session (docs/gpu-validation.md).

    python3 tools/gpu/slow_batches.py <campaign>/rounds/round-1/artifacts/runs r1-aa-1 [--above 5]

The stream printed is the worker's turn modulo 16, as the harness of that call took its streams.
Since then a shape's first warm-up batch runs on the first stream and a shape whose batch holds
much memory takes fewer streams in turn (the worker log's prepare line says how many, k): its
batch then ran on stream turn mod k. The batch's place in the arm's sequence is exact either way.
"""
import argparse
import glob
import json
import os
import re
import statistics

STREAMS = 16  # harness/python/quick_test_bench.py TIMING_STREAMS
BATCHES_PER_BLOCK = 2  # each arm's batches in a block (src/campaign/interleaved_runner.cpp blockOrder)
DIRECTIONS = ("forward", "backward")


def warmup_batches(arm, sized_from_memo):
    """run_batch calls of one direction's warm-up: the best sizes the batches unless remembered."""
    return 3 if arm == "best" and not sized_from_memo else 2


def block_samples(path, label):
    times = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("label") == label:
                times[rec["direction"]] = rec["times"]
    return times


def look(runs, prefix, above):
    sessions = sorted(glob.glob(os.path.join(runs, prefix + "-s*-timing.json")),
                      key=lambda p: int(re.search(r"-s(\d+)-timing", p).group(1)))
    blocks = len(glob.glob(os.path.join(runs, prefix + "-b*-best.samples.jsonl")))
    if not sessions or not blocks:
        raise SystemExit("no %s-s*-timing.json or %s-b*-best.samples.jsonl in %s" % (prefix, prefix, runs))
    per_session = blocks // len(sessions)
    rows = []
    for s, path in enumerate(sessions):
        shapes = json.load(open(path))["shapes"]
        for arm in ("best", "candidate"):
            turn = 0
            for shape in shapes:
                label, calls = shape["shape"], shape["calls_per_batch"]
                directions = None
                turn += len(DIRECTIONS) * warmup_batches(arm, shape.get("sized_from_memo", False))
                batches = {d: [] for d in DIRECTIONS}
                for b in range(s * per_session, (s + 1) * per_session):
                    got = block_samples(os.path.join(runs, "%s-b%d-%s.samples.jsonl" % (prefix, b, arm)), label)
                    directions = directions or [d for d in DIRECTIONS if d in got]
                    for k in range(BATCHES_PER_BLOCK):
                        for d in directions:
                            batches[d].append((turn % STREAMS, statistics.median(got[d][k * calls:(k + 1) * calls])))
                            turn += 1
                for d in directions or []:
                    typical = statistics.median(m for _st, m in batches[d])
                    slow = [(j, st, 100 * (m / typical - 1)) for j, (st, m) in enumerate(batches[d])
                            if m > typical * (1 + above / 100)]
                    rows.append((s, arm, label, d, len(batches[d]), slow))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", help="a round's artifacts/runs folder")
    ap.add_argument("prefix", help="the look's file prefix, e.g. r1-aa-1 or r3-validate-full-1")
    ap.add_argument("--above", type=float, default=5.0, help="percent over the arm's median batch (default 5)")
    opts = ap.parse_args()
    print("session arm shape direction batches: slow batches as batch@stream:+pct (batch: the arm's, in order)")
    for s, arm, label, d, n, slow in look(opts.runs, opts.prefix, opts.above):
        print("s%d %s %s %s %d: %s" % (s, arm, label, d, n, " ".join("%d@%d:+%.1f" % x for x in slow) or "-"))


if __name__ == "__main__":
    main()
