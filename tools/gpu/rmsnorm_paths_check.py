#!/usr/bin/env python3
"""Every backward code path of the sample Triton RMSNorm (kernels/triton/rmsnorm.py) checked against
the reference on the GPU, with and without a planted slowdown, before a device call spends minutes
of campaign rounds on them; and what the plant costs each path in time.

    python3 tools/gpu/rmsnorm_paths_check.py [--plant 0.03] [--out FILE.jsonl]

Paths: the row loop (the start), BWD_PREFETCH, BWD_ROWS_TILE 8192, DW_SUM "triton", prefetch and
DW_SUM together. Per path and shape: norm-relative error of dx and dw (planted and not: a plant
must never change a result), and the backward's median time by triton.testing.do_bench without
and with the plant. The plant is meant to cost about its fraction; a path where it costs far more
(a second wave of programs, say) would make the gate's planted round test nothing.
Exit 1 when any check fails.
"""
import argparse
import importlib.util
import json
import os
import sys

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATHS = {
    "row loop": {},
    "prefetch": {"BWD_PREFETCH": True},
    "rows tile 8192": {"BWD_ROWS_TILE": 8192},
    "dw sum triton": {"DW_SUM": "triton"},
    "prefetch + dw sum triton": {"BWD_PREFETCH": True, "DW_SUM": "triton"},
}
SHAPES = [(4096, 4096), (16384, 4096), (6144, 5120), (1000, 1000)]  # the last: odd sizes, masked tails


def load_kernel():
    spec = importlib.util.spec_from_file_location("kopt_rmsnorm_paths", os.path.join(ROOT, "kernels", "triton", "rmsnorm.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rel(got, ref):
    return float((got.float() - ref).norm() / ref.norm())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plant", type=float, default=0.03)
    ap.add_argument("--out")
    args = ap.parse_args()
    k = load_kernel()
    defaults = {name: getattr(k, name) for knobs in PATHS.values() for name in knobs}
    gen = torch.Generator(device="cuda").manual_seed(11)
    failed = 0
    log = open(args.out, "w") if args.out else None
    for path, knobs in PATHS.items():
        for name, value in defaults.items():
            setattr(k, name, knobs.get(name, value))
        for rows, N in SHAPES:
            x, w = k.make_inputs({"B": 1, "M": rows, "N": N}, torch.bfloat16, "cuda", gen)
            dy = torch.randn_like(x)
            ref_dx, ref_dw = k.reference_backward(x, w, dy)
            row = {"path": path, "rows": rows, "N": N}
            try:
                k.PLANTED.clear()
                dx, dw = k.backward(x, w, dy)
                row["err_dx"], row["err_dw"] = rel(dx, ref_dx), rel(dw, ref_dw)
                row["us"] = 1e3 * triton.testing.do_bench(lambda: k.backward(x, w, dy), warmup=10, rep=80)
                k.plant_slowdown((rows, N), args.plant)
                pdx, pdw = k.backward(x, w, dy)
                row["planted_err_dx"], row["planted_err_dw"] = rel(pdx, ref_dx), rel(pdw, ref_dw)
                row["planted_us"] = 1e3 * triton.testing.do_bench(lambda: k.backward(x, w, dy), warmup=10, rep=80)
                row["planted_cost_pct"] = 100.0 * (row["planted_us"] / row["us"] - 1.0)
                # bf16 outputs carry ~3e-3 relative rounding; a wrong path is far off.
                row["ok"] = max(row["err_dx"], row["err_dw"], row["planted_err_dx"], row["planted_err_dw"]) < 1e-2
            except Exception as e:  # a path that does not compile or launch is a failure, named
                row["ok"], row["error"] = False, f"{type(e).__name__}: {e}"
            finally:
                k.PLANTED.clear()
            failed += not row["ok"]
            if log:
                log.write(json.dumps(row) + "\n")
            if "error" in row:
                print(f"{path:26s} {rows}x{N}: FAIL {row['error'][:300]}", flush=True)
            else:
                print(f"{path:26s} {rows}x{N}: {'PASS' if row['ok'] else 'FAIL'} err dx {row['err_dx']:.1e} "
                      f"dw {row['err_dw']:.1e} | {row['us']:.1f} us, planted {row['planted_us']:.1f} us "
                      f"({row['planted_cost_pct']:+.1f} %)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
