#!/usr/bin/env python3
"""Measure the effect of gemm_config.h edits on this machine, the way a campaign would see them.

Each configuration (a base, and the base plus one or more knob edits) is built into its own copy
of this folder; then the bench runs round after round with the configurations interleaved in a
shuffled order, so drifting clocks and co-tenants hit every configuration alike. Reported per shape:
the ratio of the median Combined Step time (fwd + bwd ms) of the variant to the base's, and the
range of the per-round ratios (a robust effect has the whole range on one side of 1).

  python3 knob_effects.py --rounds 7 --base GEMM_LOOP_ORDER=1 \
      --variant tileN8:GEMM_TILE_N=8 --variant tileM32:GEMM_TILE_M=32

Plain python3, no third-party packages. Used to write the "measured effects" table in README.md.
"""
import argparse
import csv
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["gemm.cpp", "gemm.h", "gemm_config.h", "bench.cpp", "bench_util.h", "build.sh"]


def parse_edits(text):
    edits = {}
    for item in filter(None, text.split(",")):
        if "=" not in item:
            raise SystemExit(f"edit '{item}' must look like KNOB=VALUE")
        k, v = item.split("=", 1)
        edits[k.strip()] = v.strip()
    return edits


def apply_edits(header, edits):
    for knob, value in edits.items():
        header, n = re.subn(rf"^#define {re.escape(knob)} .*$", f"#define {knob} {value}", header, flags=re.M)
        if n != 1:
            raise SystemExit(f"knob {knob} not found in gemm_config.h")
    return header


def build(workdir, name, edits):
    d = os.path.join(workdir, name)
    os.makedirs(d)
    for f in SOURCES:
        shutil.copy(os.path.join(HERE, f), d)
    with open(os.path.join(d, "gemm_config.h")) as f:
        header = f.read()
    with open(os.path.join(d, "gemm_config.h"), "w") as f:
        f.write(apply_edits(header, edits))
    subprocess.run(["sh", os.path.join(d, "build.sh")], check=True)
    return os.path.join(d, "build", "cpu_gemm_bench")


def run(binary, csv_path, extra):
    subprocess.run([binary, "--summary-csv", csv_path] + extra, check=True, stderr=subprocess.DEVNULL)
    rows = {}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            step = float(row["Forward Time (ms)"]) + float(row["Backward Time (ms)"])
            rows[row["label"]] = (row["Check"], step)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", default="", help="edits defining the base, e.g. GEMM_LOOP_ORDER=1")
    ap.add_argument("--variant", action="append", default=[], help="NAME:KNOB=V[,KNOB=V] (on top of the base)")
    ap.add_argument("--bench-args", default="", help="extra arguments for cpu_gemm_bench")
    a = ap.parse_args()
    base = parse_edits(a.base)
    configs = {"base": base}
    for v in a.variant:
        name, _, edits = v.partition(":")
        configs[name] = {**base, **parse_edits(edits)}
    extra = a.bench_args.split()
    with tempfile.TemporaryDirectory(prefix="kopt-knobs-") as work:
        binaries = {n: build(work, n, e) for n, e in configs.items()}
        results = {n: [] for n in configs}
        order = list(configs)
        for r in range(a.rounds):
            random.shuffle(order)
            for n in order:
                results[n].append(run(binaries[n], os.path.join(work, f"{n}.csv"), extra))
            print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    labels = list(results["base"][0])
    print(f"base: {a.base or '(gemm_config.h as is)'}; ratio = variant step time / base step time "
          f"(< 1 is faster); median [min..max] over {a.rounds} interleaved rounds")
    print("config".ljust(14) + "".join(l.rjust(26) for l in labels))
    for n in configs:
        cells = []
        for l in labels:
            checks = {res[l][0] for res in results[n]}
            per_round = [res[l][1] / b[l][1] for res, b in zip(results[n], results["base"])]
            med = statistics.median(res[l][1] for res in results[n]) / statistics.median(
                b[l][1] for b in results["base"])
            tag = "" if checks == {"PASS"} else " FAIL"
            cells.append(f"{med:.3f} [{min(per_round):.2f}..{max(per_round):.2f}]{tag}")
        print(n.ljust(14) + "".join(c.rjust(26) for c in cells))


if __name__ == "__main__":
    main()
