#!/usr/bin/env python3
"""The skill template's timing loop measured like kopt's gate experiment (issue 4, acceptance 3):
for each Triton sample, two runs of the same build (A/A) and one run with a planted 3% slowdown
on one shape, then the per-shape deltas of Forward and Backward TFLOPS (GB/s) between runs. The
template has no notion of noise, so these deltas are what a fixed "regressed by 3%" rule would
read. Prints one table per kernel; run from the repository root on a GPU machine."""
import csv
import os
import subprocess
import sys
import tempfile

KERNELS = {"matmul": ("mm_4k", "Forward TFLOPS", "Backward TFLOPS"),
           "rmsnorm": ("rms_16k_4k", "Forward GB/s", "Backward GB/s")}


def run(kernel, out_dir, tag, plant=None):
    env = dict(os.environ)
    if plant:
        env["KOPT_PLANT_SLOWDOWN"] = plant
    csv_path = os.path.join(out_dir, f"{kernel}_{tag}.csv")
    subprocess.run([sys.executable, "kernels/triton/template_timing.py", kernel, "--summary-csv", csv_path,
                    "--samples", os.path.join(out_dir, f"{kernel}_{tag}.jsonl")], env=env, check=True)
    with open(csv_path) as f:
        return {row["label"]: row for row in csv.DictReader(f)}


def pct(a, b, col):
    try:
        return 100.0 * (float(b[col]) / float(a[col]) - 1.0)
    except (ValueError, ZeroDivisionError):
        return float("nan")


def main():
    out_dir = tempfile.mkdtemp(prefix="template_aa_")
    for kernel, (planted, fwd, bwd) in KERNELS.items():
        a1 = run(kernel, out_dir, "a1")
        a2 = run(kernel, out_dir, "a2")
        p = run(kernel, out_dir, "planted", f"{planted}:0.03")
        print(f"\n{kernel}: template loop (perf_counter, 3 x 50, same tensors); deltas in percent")
        print("shape | fwd A/A | bwd A/A | fwd planted-vs-A1 | bwd planted-vs-A1 | fwd stddev % (A1)")
        for label in a1:
            sd = 100.0 * float(a1[label][fwd + "_stddev"]) / float(a1[label][fwd]) if float(a1[label][fwd]) else float("nan")
            mark = "  <- planted" if label == planted else ""
            print(f"{label} | {pct(a1[label], a2[label], fwd):+.2f} | {pct(a1[label], a2[label], bwd):+.2f} | "
                  f"{pct(a1[label], p[label], fwd):+.2f} | {pct(a1[label], p[label], bwd):+.2f} | {sd:.2f}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
