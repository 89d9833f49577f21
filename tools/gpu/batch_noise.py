#!/usr/bin/env python3
"""Per round, shape and direction: is a shape's noise per call or per batch? The sd of a call's log
time within its batch (robust: 1.4826 x the median absolute deviation from the batch's median,
pooled over the batches), the sd of the batch medians, and what independent calls would give the
batch medians (simulated for normal calls at the same calls a batch, read the same way).
A ratio near 1 is noise per call (more calls a batch narrow the blocks); well above 1 is a
per-batch component on top (only more batches do).

    python3 tools/gpu/batch_noise.py CAMPAIGN_DIR [--shapes mm_1k,rms_4k_4k] [--rounds 3,5,7]

Each look's `<tag>-s<k>-timing.json` gives its shapes' calls a batch; each block's
`<tag>-b<i>-<arm>.samples.jsonl` holds that arm's two batches of the block, their calls in order,
so a block's times split into batches of that many calls. Every arm and block of a round are pooled
(the A/A rounds' two arms are one build). Standard library only.
"""
import argparse
import functools
import glob
import json
import math
import os
import random
import re
import statistics
import sys

MAD_TO_SD = 1.4826  # sd of normal draws from their median absolute deviation


@functools.lru_cache(maxsize=None)  # one simulation per batch size, not per round, shape and direction
def independent_spread(calls, reps=20000):
    """For batches of `calls` independent normal calls: the sd of the batch medians per unit of the
    robust call sd this tool reads. Simulated with a fixed seed, because both shrink at a few calls
    a batch (with 3 calls one deviation from the median is always 0): 0.49 at 8 calls, 1.45 at 3."""
    rng = random.Random(calls)
    devs, meds = [], []
    for _ in range(reps):
        x = [rng.gauss(0.0, 1.0) for _ in range(calls)]
        m = statistics.median(x)
        meds.append(m)
        devs += [abs(v - m) for v in x]
    return statistics.pstdev(meds) / (MAD_TO_SD * statistics.median(devs))


def calls_per_batch(runs):
    """shape -> calls a batch, from the round's look timing records (the first look's, where a
    later look sized its batches the same way from the memo)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(runs, "*-timing.json"))):
        with open(path) as f:
            for s in json.load(f).get("shapes", []):
                if s.get("calls_per_batch"):
                    out.setdefault(s["shape"], s["calls_per_batch"])
    return out


def batches(runs, shape, direction, calls):
    """Every batch of the round's blocks for one shape and direction: lists of log call times."""
    out = []
    for path in sorted(glob.glob(os.path.join(runs, "*-b*-*.samples.jsonl"))):
        with open(path) as f:
            for i, line in enumerate(f):
                d = json.loads(line) if i else None
                if d and d["label"] == shape and d["direction"] == direction:
                    t = [math.log(x) for x in d["times"]]
                    out += [t[k:k + calls] for k in range(0, len(t), calls) if len(t[k:k + calls]) == calls]
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign_dir")
    ap.add_argument("--shapes", default="", help="comma-separated labels (default: every shape)")
    ap.add_argument("--rounds", default="", help="comma-separated round numbers (default: every round)")
    a = ap.parse_args(argv)
    wanted_shapes = set(filter(None, a.shapes.split(",")))
    wanted_rounds = {int(r) for r in a.rounds.split(",") if r}
    rounds = sorted(glob.glob(os.path.join(a.campaign_dir, "rounds", "round-*", "artifacts", "runs")),
                    key=lambda p: int(re.search(r"round-(\d+)", p).group(1)))
    if not rounds:
        sys.exit("batch_noise: no rounds/round-*/artifacts/runs under %s" % a.campaign_dir)
    print("| round | shape | direction | calls a batch | batches | call sd % | batch-median sd % | "
          "independent calls % | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for runs in rounds:
        number = int(re.search(r"round-(\d+)", runs).group(1))
        if wanted_rounds and number not in wanted_rounds:
            continue
        for shape, calls in sorted(calls_per_batch(runs).items()):
            if (wanted_shapes and shape not in wanted_shapes) or calls < 2:
                continue
            for direction in ("forward", "backward"):
                b = batches(runs, shape, direction, calls)
                if len(b) < 3:
                    continue
                # Robust: the calls are heavy-tailed (a 0.30 ms call among 0.11 ms ones), which the
                # batch median shrugs off and a plain sd does not.
                call_sd = MAD_TO_SD * statistics.median(abs(v - statistics.median(x)) for x in b for v in x)
                spread = statistics.stdev(statistics.median(x) for x in b)
                expected = call_sd * independent_spread(calls)
                print("| %d | %s | %s | %d | %d | %.2f | %.2f | %.2f | %.2f |"
                      % (number, shape, direction, calls, len(b), 100 * call_sd, 100 * spread, 100 * expected,
                         spread / expected if expected else float("nan")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
