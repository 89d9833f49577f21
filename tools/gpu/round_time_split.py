#!/usr/bin/env python3
"""Each round's wall time split into the commands kopt ran and kopt's own time, from a finished
campaign's records (ledger stamps and measurement files), for docs/gpu-validation.md:

    python3 tools/gpu/round_time_split.py CAMPAIGN_DIR [CAMPAIGN_DIR ...]

A round runs from its round_begun line to its round_decided line. Commands: the build and the
tests (their wall_ms in the ledger), the bench (each process pair's runs, or each worker look's
total from its timing file) and a rebuild of the best's worktree (the time from the line before a
worktree_built line to it). kopt's own time is what is left: opening the campaign, the checks,
statistics, git, records. The scripted agent answers at once, so no agent time is inside.
"""
import datetime
import glob
import json
import os
import sys


def stamp(event):
    return datetime.datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()


def bench_ms(artifacts, tag):
    """Wall time of one measurement's commands: process pairs' runs, or a worker look."""
    path = os.path.join(artifacts, "measurement-%s.json" % tag)
    total = 0.0
    if os.path.exists(path):
        for pair in json.load(open(path)).get("pairs", []):
            for arm in ("best", "candidate"):
                total += pair.get(arm, {}).get("wall_ms", 0)
    for timing in glob.glob(os.path.join(artifacts, "runs", "%s-s*-timing.json" % tag)):
        total += json.load(open(timing)).get("total_ms", 0)
    return total


def split(campaign):
    events = [json.loads(line) for line in open(os.path.join(campaign, "ledger.jsonl"))]
    rows, begun = [], None
    for i, e in enumerate(events):
        if e["type"] == "round_begun":
            begun, parts = e, {"build": 0.0, "tests": 0.0, "bench": 0.0, "best build": 0.0}
        elif begun is None:
            continue
        elif e["type"] == "build_finished":
            parts["build"] += e["payload"].get("wall_ms") or 0
        elif e["type"] == "tests_finished":
            parts["tests"] += e["payload"].get("wall_ms") or 0
        elif e["type"] == "worktree_built":
            parts["best build"] += (stamp(e) - stamp(events[i - 1])) * 1e3
        elif e["type"] == "round_validated":
            artifacts = os.path.join(campaign, "rounds", "round-%d" % e["round"], "artifacts")
            for tag in e["payload"].get("measurements", []):
                parts["bench"] += bench_ms(artifacts, tag)
        elif e["type"] == "round_decided":
            total = (stamp(e) - stamp(begun)) * 1e3
            rows.append((e["round"], total, parts, total - sum(parts.values())))
            begun = None
    return rows


def main():
    for campaign in sys.argv[1:]:
        print("## %s" % os.path.basename(campaign.rstrip("/")))
        print("| round | wall s | build s | tests s | bench s | best's rebuild s | kopt's own s |")
        print("|---|---|---|---|---|---|---|")
        for rnd, total, parts, own in split(campaign):
            print("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |" % (
                rnd, total / 1e3, parts["build"] / 1e3, parts["tests"] / 1e3, parts["bench"] / 1e3,
                parts["best build"] / 1e3, own / 1e3))


if __name__ == "__main__":
    main()
