#!/usr/bin/env python3
"""Writes summary.md for a GPU validation run (tools/gpu/h200_validation.sh): the steps and their exit
codes, the device and its ceilings, the torch check, and each HIP kernel's numbers as a fraction of
the measured ceilings. Standard library only; every input may be missing (its section then says so).

Usage: summarize_validation.py --work DIR --out DIR
  reads  DIR(work)/steps.tsv, DIR(work)/device_probe.json,
         DIR(out)/torch_check.json, DIR(out)/hip_gemm.csv, DIR(out)/hip_rmsnorm.csv
  writes DIR(out)/summary.md (and prints it)
"""
import argparse
import csv
import json
import math
import os
import sys


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def load_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return None


def num(text):
    try:
        v = float(text)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def fmt(v, digits=1):
    return "—" if v is None else f"{v:,.{digits}f}"


def pct(v, ceiling):
    if v is None or not ceiling:
        return "—"
    return f"{100.0 * v / ceiling:.1f}%"


def pick_ceilings(probe, torch_check):
    """kopt's own measurement first, then torch's, then the datasheet; says which was used."""
    copy = matmul = None
    src_copy = src_mm = "none"
    dev = (probe or {}).get("devices") or [{}]
    dev = dev[0] if dev else {}
    c = dev.get("ceilings") or {}
    if c.get("copy_gbps"):
        copy, src_copy = c["copy_gbps"], "kopt device_info (measured)"
    if c.get("matmul_bf16_tflops"):
        matmul, src_mm = c["matmul_bf16_tflops"], "kopt device_info (measured)"
    tc = (torch_check or {}).get("ceilings") or {}
    if copy is None and tc.get("copy_gbps"):
        copy, src_copy = tc["copy_gbps"], "torch (measured)"
    if matmul is None and tc.get("matmul_bf16_tflops"):
        matmul, src_mm = tc["matmul_bf16_tflops"], "torch (measured)"
    peak = dev.get("peak") or {}
    if copy is None and peak.get("hbm_gbps"):
        copy, src_copy = peak["hbm_gbps"], "datasheet peak"
    if matmul is None and peak.get("bf16_dense_tflops"):
        matmul, src_mm = peak["bf16_dense_tflops"], "datasheet peak"
    return copy, src_copy, matmul, src_mm


def section_steps(lines, steps_path):
    lines.append("## Steps\n")
    try:
        with open(steps_path) as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError:
        lines.append("(no steps recorded)\n")
        return
    lines.append("| step | exit code | seconds |\n|---|---|---|")
    for r in rows:
        r = (r + ["", "", ""])[:3]
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} |")
    lines.append("")


def section_device(lines, probe, torch_check, ceilings):
    copy, src_copy, matmul, src_mm = ceilings
    lines.append("## Device and ceilings\n")
    if not probe:
        lines.append("kopt_device_probe gave no JSON (see validation.log).\n")
    elif not probe.get("present"):
        lines.append(f"No GPU: {probe.get('reason')}\n")
    else:
        for d in probe.get("devices", []):
            peak = d.get("peak") or {}
            lines.append(f"- {d.get('name')} ({d.get('arch')}), {d.get('compute_units')} SMs/CUs, "
                         f"{fmt((d.get('memory_bytes') or 0) / 2**30)} GiB, SM clock {d.get('sm_clock_mhz')} MHz, "
                         f"memory clock {d.get('memory_clock_mhz')} MHz x {d.get('memory_bus_bits')} bits "
                         f"(theoretical {fmt(d.get('theoretical_bandwidth_gbps'), 0)} GB/s), driver {d.get('driver_version')}")
            lines.append(f"- datasheet ({peak.get('product')}, table {peak.get('table_version')}): "
                         f"bf16 {peak.get('bf16_dense_tflops')} TFLOPS, fp8 {peak.get('fp8_dense_tflops')} TFLOPS, "
                         f"HBM {peak.get('hbm_gbps')} GB/s")
            c = d.get("ceilings") or {}
            lines.append(f"- kopt measured ({d.get('ceilings_status')}): copy {fmt(c.get('copy_gbps'), 0)} GB/s "
                         f"[{c.get('copy_method', '')}], bf16 matmul {fmt(c.get('matmul_bf16_tflops'), 0)} TFLOPS "
                         f"[{c.get('matmul_method', '')}]")
    tc = (torch_check or {}).get("ceilings")
    if tc:
        lines.append(f"- torch measured: copy {fmt(tc.get('copy_gbps'), 0)} GB/s, bf16 matmul "
                     f"{fmt(tc.get('matmul_bf16_tflops'), 0)} TFLOPS")
    lines.append(f"- ceilings used below: copy {fmt(copy, 0)} GB/s ({src_copy}); matmul {fmt(matmul, 0)} TFLOPS ({src_mm})\n")


def section_torch(lines, torch_check):
    lines.append("## HIP kernels against torch\n")
    if not torch_check:
        lines.append("No torch_check.json (see validation.log).\n")
        return
    lines.append(f"torch {torch_check.get('torch')} on {torch_check.get('device')}; all pass: "
                 f"**{torch_check.get('all_pass')}**\n")
    lines.append("| kernel | shape | result | relative error (ours / torch bf16), per output |\n|---|---|---|---|")
    for kind in ("gemm", "rmsnorm"):
        for c in torch_check.get(kind, []):
            shape = "x".join(str(c[k]) for k in ("B", "M", "N", "K") if k in c) or str(c.get("shape"))
            errs = ", ".join(f"{k[:-8]} {c[k]:.2e} / {c.get(k[:-8] + '_torch_rel_err', float('nan')):.2e}"
                             for k in c if k.endswith("_rel_err") and not k.endswith("_torch_rel_err"))
            lines.append(f"| {kind} | {shape} | {'PASS' if c.get('pass') else 'FAIL'} | {errs or c.get('error', '')} |")
    if torch_check.get("speed"):
        lines.append(f"\nSanity speeds (warm cache): `{json.dumps(torch_check['speed'])}`")
    lines.append("")


def section_gemm(lines, rows, matmul):
    lines.append("## HIP bf16 GEMM (native bench)\n")
    if rows is None:
        lines.append("No hip_gemm.csv (see validation.log).\n")
        return
    lines.append("| label | Check | fwd TFLOPS | bwd TFLOPS | combined step TFLOPS | fwd % of matmul ceiling | "
                 "step % of ceiling | SNR out/da/db |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        f, b = num(r.get("Forward TFLOPS")), num(r.get("Backward TFLOPS"))
        tf, tb = num(r.get("Forward Time (ms)")), num(r.get("Backward Time (ms)"))
        B, M, N, K = (num(r.get(k)) or 0 for k in ("B", "M", "N", "K"))
        step = 6 * B * M * N * K / ((tf + tb) * 1e-3) / 1e12 if tf and tb else None
        snr = "/".join(r.get(k, "") for k in ("out_snr", "da_snr", "db_snr"))
        lines.append(f"| {r.get('label')} | {r.get('Check')} | {fmt(f)} | {fmt(b)} | {fmt(step)} | {pct(f, matmul)} | "
                     f"{pct(step, matmul)} | {snr} |")
    lines.append("")


def section_rmsnorm(lines, rows, copy):
    lines.append("## HIP RMSNorm (native bench)\n")
    if rows is None:
        lines.append("No hip_rmsnorm.csv (see validation.log).\n")
        return
    lines.append("| label | Check | fwd GB/s | bwd GB/s | fwd % of copy ceiling | bwd % of copy ceiling | max_abs_err |\n"
                 "|---|---|---|---|---|---|---|")
    for r in rows:
        f, b = num(r.get("Forward GB/s")), num(r.get("Backward GB/s"))
        lines.append(f"| {r.get('label')} | {r.get('Check')} | {fmt(f, 0)} | {fmt(b, 0)} | {pct(f, copy)} | "
                     f"{pct(b, copy)} | {r.get('max_abs_err')} |")
    lines.append("")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    probe = load_json(os.path.join(args.work, "device_probe.json"))
    torch_check = load_json(os.path.join(args.out, "torch_check.json"))
    ceilings = pick_ceilings(probe, torch_check)
    lines = ["# GPU validation summary\n", "Produced by tools/gpu/h200_validation.sh; details in validation.log.\n"]
    section_steps(lines, os.path.join(args.work, "steps.tsv"))
    section_device(lines, probe, torch_check, ceilings)
    section_torch(lines, torch_check)
    section_gemm(lines, load_csv(os.path.join(args.out, "hip_gemm.csv")), ceilings[2])
    section_rmsnorm(lines, load_csv(os.path.join(args.out, "hip_rmsnorm.csv")), ceilings[0])
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
