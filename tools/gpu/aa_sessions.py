#!/usr/bin/env python3
"""Per worker session of a BASELINE A/A, each shape's and direction's mean block log-ratio and its
standard error: what the harness check compares when it decides whether a shape's blocks are a
valid unit or it falls back to process means (a between-session spread beyond the sessions' SEs
is a per-process offset; one sign in every session is a bias).

    python3 tools/gpu/aa_sessions.py CAMPAIGN_DIR [--tag r1-aa-1] [--blocks 8]

A block's log-ratio is log(median candidate call) - log(median best call) of that block's samples
(rounds/round-1/artifacts/runs/<tag>-b<i>-<arm>.samples.jsonl), in percent; block i belongs to
session i // blocks (the runner numbers blocks on across sessions). Standard library only.
"""
import argparse
import collections
import glob
import json
import math
import os
import re
import statistics
import sys


def samples(path):
    """(label, direction) -> the call times of one arm's block file (its first line is the header)."""
    out = {}
    with open(path) as f:
        for i, line in enumerate(f):
            if i:
                d = json.loads(line)
                out[(d["label"], d["direction"])] = d["times"]
    return out


def session_means(runs, tag, blocks_per_session):
    """(label, direction) -> [(session mean %, its SE %)] in session order."""
    found = glob.glob(os.path.join(runs, "%s-b*-best.samples.jsonl" % tag))
    indices = sorted(int(re.search(r"-b(\d+)-best", f).group(1)) for f in found)
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    for b in indices:
        cand = samples(os.path.join(runs, "%s-b%d-candidate.samples.jsonl" % (tag, b)))
        best = samples(os.path.join(runs, "%s-b%d-best.samples.jsonl" % (tag, b)))
        for key, times in cand.items():
            if times and best.get(key):
                ratio = math.log(statistics.median(times)) - math.log(statistics.median(best[key]))
                per[key][b // blocks_per_session].append(100.0 * ratio)
    out = {}
    for key, sessions in per.items():
        rows = []
        for _s, values in sorted(sessions.items()):
            se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
            rows.append((statistics.mean(values), se))
        out[key] = rows
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("campaign")
    ap.add_argument("--tag", default="r1-aa-1")
    ap.add_argument("--blocks", type=int, default=8, help="blocks per session (the baseline's blocks per look)")
    opts = ap.parse_args(argv)
    runs = os.path.join(opts.campaign, "rounds", "round-1", "artifacts", "runs")
    means = session_means(runs, opts.tag, opts.blocks)
    if not means:
        print("no A/A blocks of %s under %s" % (opts.tag, runs), file=sys.stderr)
        return 1
    for (label, direction), rows in sorted(means.items()):
        ms = [m for m, _se in rows]
        spread = statistics.stdev(ms) if len(ms) > 1 else float("nan")
        print("%-12s %-8s sessions %s  sd of session means %.2f %%, mean SE %.2f %%" % (
            label, direction, " ".join("%+.2f(%.2f)" % r for r in rows), spread,
            statistics.mean(se for _m, se in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
