#!/usr/bin/env python3
"""A quick look at one-knob variants of the sample Triton RMSNorm (kernels/triton/rmsnorm.py) on the
GPU, before a campaign spends rounds on them: each knob moved alone from the file's value, every
variant checked against the reference once per shape, then timed with triton.testing.do_bench (its
own L2 clearing between calls). It only ranks candidates for a campaign's rounds; the campaign's
verdicts are kopt's (the persistent workers and the gate), not these numbers. Trust it for knobs
that break or collapse a shape, not for gains: on the H200 (2026-12-03, docs/gpu-validation.md,
eleventh session) it read +17 % and +13 % for two knobs kopt then measured as no change at all
(one a forward knob, which cannot move the backward it was ranked on).

    python3 tools/gpu/triton_knob_sweep.py --out DIR [--pick-rounds FILE]

Writes DIR/sweep.jsonl (one line per variant and shape) and DIR/summary.txt (per variant: the
geometric mean of backward and forward GB/s against the base). --pick-rounds FILE writes the
campaign rounds make_accept_campaigns.py --rmsnorm-rounds reads, on three different knobs: the best
passing variant by backward geomean, the worst of another knob, and the best of a third, as (before
line, after line, reason, expected size %).
"""
import argparse
import importlib.util
import json
import math
import os
import sys

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = os.path.join(ROOT, "kernels", "triton", "rmsnorm.py")
sys.path.insert(0, os.path.join(ROOT, "kernels", "triton"))

# knob -> (values to try, why a change could help: the round's stated reason)
KNOBS = {
    "BWD_PROGRAMS": ([132, 396, 528, 1056], "a different number of backward programs per SM changes how many rows' loads are in flight"),
    "BWD_NUM_WARPS": ([2, 4, 16], "a different warp count per backward program trades reduction cost against resident rows"),
    "BWD_NUM_STAGES": ([1, 2, 4], "a different pipeline depth for the backward's row loop overlaps the next row's loads with this row's math"),
    "FWD_NUM_WARPS": ([2, 4, 16], "a different warp count per forward row trades reduction cost against resident rows"),
}


def load_kernel():
    spec = importlib.util.spec_from_file_location("kopt_sweep_rmsnorm", KERNEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shapes():
    import rmsnorm_bench  # kernels/triton: the campaign's own shapes
    return [(label, B * M, N) for label, B, M, N in rmsnorm_bench.SHAPES]


def measure(k, rows, N, gen):
    shape = {"B": 1, "M": rows, "N": N}
    x, w = k.make_inputs(shape, torch.bfloat16, "cuda", gen)
    dy = torch.randn_like(x)
    y = k.forward(x, w)
    dx, dw = k.backward(x, w, dy)
    ref_y = k.reference_forward(x, w)
    ref_dx, ref_dw = k.reference_backward(x, w, dy)
    # Norm-relative error: bf16 outputs carry ~3e-3 relative rounding; a wrong variant is far off.
    ok = all(float((got.float() - ref).norm() / ref.norm()) < 1e-2
             for got, ref in ((y, ref_y), (dx, ref_dx), (dw, ref_dw)))
    fwd_ms = triton.testing.do_bench(lambda: k.forward(x, w), warmup=10, rep=60)
    bwd_ms = triton.testing.do_bench(lambda: k.backward(x, w, dy), warmup=10, rep=60)
    fwd_b = k.bytes_moved(shape, (x, w), None, "forward")
    bwd_b = k.bytes_moved(shape, (x, w), None, "backward")
    return ok, fwd_b / fwd_ms / 1e6, bwd_b / bwd_ms / 1e6


def variants(k):
    yield "base", None, None
    for knob, (values, _) in KNOBS.items():
        for v in values:
            if v != getattr(k, knob):
                yield f"{knob}={v}", knob, v


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def pick_rounds(k, rows_by_variant):
    """(before, after, reason, size %) for the best, a loss and a third, each on its own knob."""
    base = {r["shape"]: r for r in rows_by_variant["base"]}
    scored = []
    for name, rows in rows_by_variant.items():
        if name == "base" or not all(r["ok"] for r in rows):
            continue
        ratio = geomean([r["bwd_gbs"] / base[r["shape"]]["bwd_gbs"] for r in rows])
        knob, value = name.split("=")
        scored.append((ratio, knob, int(value)))
    scored.sort(reverse=True)
    if len(scored) < 3:
        raise SystemExit("triton_knob_sweep: fewer than three passing variants; no rounds picked")
    # Three different knobs: a round edits its knob's line as the file has it after the rounds
    # before it, so a knob moved by an accepted round cannot be moved from its old value again.
    best = scored[0]
    loss = [s for s in scored if s[1] != best[1]][-1]
    third = [s for s in scored if s[1] not in (best[1], loss[1])][0]
    chosen = [best, loss, third]
    rounds = []
    for ratio, knob, value in chosen:
        before = f"{knob} = {getattr(k, knob)}"
        after = f"{knob} = {value}"
        size = max(1, round(abs(ratio - 1.0) * 100))
        rounds.append([before, after, KNOBS[knob][1] + f" (the quick look read x{ratio:.3f})", size])
    return rounds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pick-rounds")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    k = load_kernel()
    defaults = {knob: getattr(k, knob) for knob in KNOBS}
    gen = torch.Generator(device="cuda").manual_seed(7)
    rows_by_variant = {}
    with open(os.path.join(args.out, "sweep.jsonl"), "w") as log:
        for name, knob, value in variants(k):
            for kk, vv in defaults.items():
                setattr(k, kk, vv)
            if knob:
                setattr(k, knob, value)
            rows = []
            for label, rows_n, N in shapes():
                try:
                    ok, fwd, bwd = measure(k, rows_n, N, gen)
                except Exception as e:  # a variant that does not compile or launch: recorded, skipped
                    ok, fwd, bwd = False, float("nan"), float("nan")
                    print(f"{name} {label}: {type(e).__name__}: {e}", file=sys.stderr)
                row = {"variant": name, "shape": label, "ok": ok, "fwd_gbs": fwd, "bwd_gbs": bwd}
                rows.append(row)
                log.write(json.dumps(row) + "\n")
            rows_by_variant[name] = rows
            print(name, " ".join(f"{r['shape']}:{r['bwd_gbs']:.0f}{'' if r['ok'] else '!'}" for r in rows), flush=True)
    base = {r["shape"]: r for r in rows_by_variant["base"]}
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write("variant  backward_geomean_vs_base  forward_geomean_vs_base  all_checks_pass\n")
        for name, rows in rows_by_variant.items():
            b = geomean([r["bwd_gbs"] / base[r["shape"]]["bwd_gbs"] for r in rows if r["ok"]])
            fw = geomean([r["fwd_gbs"] / base[r["shape"]]["fwd_gbs"] for r in rows if r["ok"]])
            f.write(f"{name}  {b:.3f}  {fw:.3f}  {all(r['ok'] for r in rows)}\n")
    print(open(os.path.join(args.out, "summary.txt")).read())
    if args.pick_rounds:
        for kk, vv in defaults.items():
            setattr(k, kk, vv)
        rounds = pick_rounds(k, rows_by_variant)
        with open(args.pick_rounds, "w") as f:
            json.dump(rounds, f, indent=1)
        print("rounds:", json.dumps(rounds))


if __name__ == "__main__":
    main()
