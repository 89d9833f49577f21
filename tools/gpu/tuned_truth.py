#!/usr/bin/env python3
"""triton.testing.do_bench truth of the planted rounds of kernels/triton/rmsnorm_tuned.py, on the
shapes of rmsnorm_tuned_bench.py, outside kopt:

    python3 tools/gpu/tuned_truth.py [--variants base,A,B,C,D,base2] [--reps 2] [--shapes t64k_1k,...]
                                     [--out truth.jsonl] [--cache DIR]

A variant is the kernel with its knobs set as one round of tools/gpu/campaigns/triton_rmsnorm_tuned.json
sets them (A: ROW_REVISIT_FRACTION 0.03, B: SMALL_ROW_PROGRAMS_PER_SM 4, C: DX_SCALE 1.05,
D: FWD_NUM_WARPS 2 * 4; base2: the base again, an A/A). Each (rep, variant) runs in a process of its
own, the variants in turn within a rep, so a process effect lands on every variant alike. A
variant's processes share one Triton cache directory with autotune caching on (DIR/<variant>), so
its first process tunes and the later ones load that choice, as kopt's harness pins one config per
tree. Per shape and variant: the backward's and the forward's do_bench median (us), the backward's
autotuned config, and the check (dx and dw against the module's reference, the harness's bf16
allclose). The summary (stdout) gives each variant's backward time against base per shape: a
ratio above 1 is faster.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
KERNEL = os.path.join(ROOT, "kernels", "triton", "rmsnorm_tuned.py")

VARIANTS = {
    "base": {},
    "A": {"ROW_REVISIT_FRACTION": 0.03},
    "B": {"SMALL_ROW_PROGRAMS_PER_SM": 4},
    "C": {"DX_SCALE": 1.05},
    "D": {"FWD_NUM_WARPS": 2 * 4},
    "base2": {},
}


def shapes():
    """rmsnorm_tuned_bench.py's SHAPES, read from its text (importing it would start the harness)."""
    src = open(os.path.join(ROOT, "kernels", "triton", "rmsnorm_tuned_bench.py")).read()
    start = src.index("SHAPES = [")
    scope = {}
    exec(src[start:src.index("]\n", start) + 1], scope)
    return scope["SHAPES"]


def child(variant, labels):
    import importlib.util

    import torch
    import triton
    import triton.testing

    spec = importlib.util.spec_from_file_location("rmsnorm_tuned", KERNEL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name, value in VARIANTS[variant].items():
        setattr(mod, name, value)
    gen = torch.Generator(device="cuda")
    for label, B, M, N in shapes():
        if labels and label not in labels:
            continue
        gen.manual_seed(1234)
        x, w = mod.make_inputs({"label": label, "B": B, "M": M, "N": N}, torch.bfloat16, "cuda", gen)
        g = torch.randn(x.shape, generator=gen, device="cuda", dtype=torch.float32).to(torch.bfloat16)
        dx, dw = mod.backward(x, w, g)
        rdx, rdw = mod.reference_backward(x, w, g)
        ok = bool(torch.allclose(dx.float(), rdx, rtol=1e-2, atol=1e-2)) and bool(
            torch.allclose(dw.float(), rdw, rtol=1e-2, atol=1e-2))
        err = float((dx.float() - rdx).abs().max())
        y = mod.forward(x, w)
        ok = ok and bool(torch.allclose(y.float(), mod.reference_forward(x, w), rtol=1e-2, atol=1e-2))
        bwd = triton.testing.do_bench(lambda: mod.backward(x, w, g), warmup=50, rep=300, return_mode="median")
        fwd = triton.testing.do_bench(lambda: mod.forward(x, w), warmup=50, rep=200, return_mode="median")
        at = mod._rmsnorm_bwd_kernel
        config = str(getattr(at, "best_config", None))
        print(json.dumps({"variant": variant, "label": label, "bwd_us": bwd * 1e3, "fwd_us": fwd * 1e3,
                          "config": config, "check": "PASS" if ok else "FAIL", "dx_max_err": err,
                          "programs": mod.backward_programs(x.shape[0], N, x.device),
                          "device": torch.cuda.get_device_name()}), flush=True)
        del x, w, g, dx, dw, rdx, rdw, y
        torch.cuda.empty_cache()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="base,A,B,C,D,base2")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--shapes", default="")
    ap.add_argument("--out", default="")
    ap.add_argument("--cache", default="/tmp/kopt-tuned-truth")
    ap.add_argument("--child", default="")
    a = ap.parse_args(argv)
    labels = [s for s in a.shapes.split(",") if s]
    if a.child:
        child(a.child, labels)
        return 0
    variants = [v for v in a.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        print("unknown variant(s) %s (known: %s)" % (",".join(unknown), ",".join(VARIANTS)), file=sys.stderr)
        return 2
    rows = []
    out = open(a.out, "w") if a.out else None
    for rep in range(a.reps):
        for v in variants:
            # base2 is base's tree again: the same cache, so an A/A of two processes of one tree
            env = dict(os.environ, TRITON_CACHE_AUTOTUNING="1",
                       TRITON_CACHE_DIR=os.path.join(a.cache, "base" if v == "base2" else v))
            cmd = [sys.executable, os.path.abspath(__file__), "--child", v, "--shapes", ",".join(labels)]
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                print("rep %d variant %s: exit %d\n%s" % (rep, v, p.returncode, p.stderr[-3000:]), file=sys.stderr)
            for line in p.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                r["rep"] = rep
                rows.append(r)
                if out:
                    out.write(json.dumps(r) + "\n")
                    out.flush()
                print("rep %d %-5s %-8s bwd %8.1f us  fwd %7.1f us  %s  programs %d  %s"
                      % (rep, v, r["label"], r["bwd_us"], r["fwd_us"], r["check"], r["programs"], r["config"]))
    if out:
        out.close()
    # summary: per shape, each variant's median backward time over reps against base's
    print("\nbackward do_bench median over %d rep(s); ratio = base time / variant time (above 1: faster)" % a.reps)
    labels_seen = []
    for r in rows:
        if r["label"] not in labels_seen:
            labels_seen.append(r["label"])
    for label in labels_seen:
        med = {}
        for v in variants:
            ts = [r["bwd_us"] for r in rows if r["label"] == label and r["variant"] == v]
            if ts:
                med[v] = statistics.median(ts)
        base = med.get("base")
        cells = []
        for v in variants:
            if v in med:
                checks = {r["check"] for r in rows if r["label"] == label and r["variant"] == v}
                ratio = "" if not base else " x%.3f" % (base / med[v])
                cells.append("%s %.1f us%s%s" % (v, med[v], ratio, "" if checks == {"PASS"} else " " + "/".join(sorted(checks))))
        print("%-8s %s" % (label, "; ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
