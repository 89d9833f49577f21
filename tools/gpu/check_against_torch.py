#!/usr/bin/env python3
"""Checks kopt's HIP sample kernels against torch on the GPU, and measures the two ceilings with torch.

Loads libkopt_hip_kernels.so (kernels/hip, built with nvcc or hipcc) through ctypes, feeds it torch
tensors' device pointers on torch's current stream, and compares with a float64 reference computed
by torch on the GPU, next to torch's own bf16 result (so the kernel's error is read against the
error bf16 arithmetic cannot avoid):
  - GEMM forward out = a @ w^T and backward da = g @ w, dw = g^T @ a, batched, odd sizes included;
  - RMSNorm forward and backward (torch autograd in float64 as the reference).
Every output is poisoned with NaN before the call; fresh random inputs per case (never zeros).
Then the ceilings the way METHOD.md asks: a large device-to-device copy (bytes read + written) and
an 8192^3 bf16 matmul on random data, each the median of 20 event-timed calls after 3 warm-ups.

Usage: python3 tools/gpu/check_against_torch.py --lib build-hip/libkopt_hip_kernels.so --json out.json
Exit 0 when every case passes, 1 when any fails, 2 when the library or torch cannot be used.
"""
import argparse
import ctypes
import json
import math
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lib", required=True, help="path to libkopt_hip_kernels.so")
    p.add_argument("--json", required=True, help="where to write the results")
    p.add_argument("--seed", type=int, default=20260)
    p.add_argument("--skip-ceilings", action="store_true")
    return p.parse_args()


def load_library(path):
    lib = ctypes.CDLL(path)
    vp, i, f, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_float, ctypes.c_size_t
    lib.kopt_gemm_bf16_forward.argtypes = [vp, vp, vp, i, i, i, i, vp]
    lib.kopt_gemm_bf16_backward.argtypes = [vp, vp, vp, vp, vp, i, i, i, i, vp]
    lib.kopt_rmsnorm_bf16_backward_workspace_bytes.argtypes = [i, i]
    lib.kopt_rmsnorm_bf16_backward_workspace_bytes.restype = sz
    lib.kopt_rmsnorm_bf16_forward.argtypes = [vp, vp, vp, i, i, f, vp]
    lib.kopt_rmsnorm_bf16_backward.argtypes = [vp, vp, vp, vp, vp, vp, sz, i, i, f, vp]
    lib.kopt_hip_error_string.argtypes = [i]
    lib.kopt_hip_error_string.restype = ctypes.c_char_p
    for name in ("kopt_gemm_bf16_forward", "kopt_gemm_bf16_backward", "kopt_rmsnorm_bf16_forward",
                 "kopt_rmsnorm_bf16_backward"):
        getattr(lib, name).restype = i
    return lib


def rel_err(out, ref):
    """||out - ref|| / ||ref|| in float64; inf when out has NaN/Inf."""
    out = out.double()
    if not bool(torch.isfinite(out).all()):
        return math.inf
    denom = float(ref.norm())
    return float((out - ref).norm()) / denom if denom > 0 else float((out - ref).norm())


def snr_db(out, ref):
    e = rel_err(out, ref)
    if math.isinf(e):
        return float("nan")
    return math.inf if e == 0 else -20.0 * math.log10(e)


def check_rc(lib, rc, what):
    if rc != 0:
        raise RuntimeError(f"{what} returned {rc}: {lib.kopt_hip_error_string(rc).decode()}")


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


def stream():
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def nan_like(shape, dtype=None):
    return torch.full(shape, float("nan"), dtype=dtype or torch.bfloat16, device="cuda")


# A kernel passes when its error is small in absolute terms (bf16 outputs: under 1e-2 relative) and
# not much worse than torch's own bf16 computation of the same thing.
REL_TOL = 1e-2
VS_TORCH_FACTOR = 4.0


def verdict(ours, torchs):
    return ours < REL_TOL and (ours <= VS_TORCH_FACTOR * torchs or ours < 2e-3)


def gemm_case(lib, b, m, n, k):
    a = torch.randn(b, m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(b, n, k, device="cuda", dtype=torch.bfloat16)
    g = torch.randn(b, m, n, device="cuda", dtype=torch.bfloat16)
    out, da, dw = nan_like((b, m, n)), nan_like((b, m, k)), nan_like((b, n, k))
    check_rc(lib, lib.kopt_gemm_bf16_forward(ptr(a), ptr(w), ptr(out), b, m, n, k, stream()), "forward")
    check_rc(lib, lib.kopt_gemm_bf16_backward(ptr(g), ptr(a), ptr(w), ptr(da), ptr(dw), b, m, n, k, stream()), "backward")
    torch.cuda.synchronize()
    ad, wd, gd = a.double(), w.double(), g.double()
    ref_out = ad @ wd.transpose(-1, -2)
    ref_da = gd @ wd
    ref_dw = gd.transpose(-1, -2) @ ad
    t_out = a @ w.transpose(-1, -2)
    t_da = g @ w
    t_dw = g.transpose(-1, -2) @ a
    res = {"B": b, "M": m, "N": n, "K": k}
    ok = True
    for name, ours, ref, theirs in (("out", out, ref_out, t_out), ("da", da, ref_da, t_da), ("dw", dw, ref_dw, t_dw)):
        e_ours, e_torch = rel_err(ours, ref), rel_err(theirs, ref)
        res[f"{name}_rel_err"] = e_ours
        res[f"{name}_torch_rel_err"] = e_torch
        res[f"{name}_snr_db"] = snr_db(ours, ref)
        ok = ok and verdict(e_ours, e_torch)
    res["pass"] = ok
    return res


def rms_reference(x, w, eps):
    xd = x.double().requires_grad_(True)
    wd = w.double().requires_grad_(True)
    r = torch.rsqrt(xd.pow(2).mean(dim=-1, keepdim=True) + eps)
    return xd, wd, xd * r * wd


def rmsnorm_case(lib, m, n, eps=1e-6):
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    w = (1.0 + 0.5 * (torch.rand(n, device="cuda") - 0.5)).to(torch.bfloat16)
    dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    y, dx, dw = nan_like((m, n)), nan_like((m, n)), nan_like((n,))
    ws_bytes = lib.kopt_rmsnorm_bf16_backward_workspace_bytes(m, n)
    ws = torch.empty(max(ws_bytes, 4), dtype=torch.uint8, device="cuda")
    check_rc(lib, lib.kopt_rmsnorm_bf16_forward(ptr(x), ptr(w), ptr(y), m, n, ctypes.c_float(eps), stream()), "forward")
    check_rc(lib, lib.kopt_rmsnorm_bf16_backward(ptr(dy), ptr(x), ptr(w), ptr(dx), ptr(dw), ptr(ws), ws_bytes, m, n,
                                                 ctypes.c_float(eps), stream()), "backward")
    torch.cuda.synchronize()
    xd, wd, yd = rms_reference(x, w, eps)
    yd.backward(dy.double())
    # torch's own bf16 path for comparison (functional rms_norm exists from torch 2.4).
    xt = x.detach().clone().requires_grad_(True)
    wt = w.detach().clone().requires_grad_(True)
    yt = torch.nn.functional.rms_norm(xt, (n,), wt, eps)
    yt.backward(dy)
    res = {"M": m, "N": n}
    ok = True
    for name, ours, ref, theirs in (("y", y, yd.detach(), yt.detach()), ("dx", dx, xd.grad, xt.grad),
                                    ("dw", dw, wd.grad, wt.grad)):
        e_ours, e_torch = rel_err(ours, ref), rel_err(theirs, ref)
        res[f"{name}_rel_err"] = e_ours
        res[f"{name}_torch_rel_err"] = e_torch
        res[f"{name}_max_abs_err"] = float((ours.double() - ref).abs().max()) if not math.isinf(e_ours) else math.inf
        ok = ok and verdict(e_ours, e_torch)
    res["pass"] = ok
    return res


def median_ms(fn, warmup=3, iters=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(iters):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def ceilings():
    nbytes = 2 << 30
    free, _ = torch.cuda.mem_get_info()
    nbytes = min(nbytes, free // 4)
    src = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_ms = median_ms(lambda: dst.copy_(src))
    del src, dst
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    mm_ms = median_ms(lambda: a @ b.t())
    return {
        "copy_bytes_each_way": nbytes,
        "copy_ms_median": copy_ms,
        "copy_gbps": 2 * nbytes / (copy_ms * 1e-3) / 1e9,
        "matmul_shape": [n, n, n],
        "matmul_ms_median": mm_ms,
        "matmul_bf16_tflops": 2 * n ** 3 / (mm_ms * 1e-3) / 1e12,
        "method": "torch: copy_ of uint8 random data; a @ b.t() bf16 randn; median of 20 event-timed calls after 3",
    }


def kernel_speed(lib):
    """One informative number per kernel (the native bench is the real measurement)."""
    out = {}
    m = n = k = 4096
    a = torch.randn(1, m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(1, n, k, device="cuda", dtype=torch.bfloat16)
    o = torch.empty(1, m, n, device="cuda", dtype=torch.bfloat16)
    ms = median_ms(lambda: lib.kopt_gemm_bf16_forward(ptr(a), ptr(w), ptr(o), 1, m, n, k, stream()))
    t_ms = median_ms(lambda: a @ w.transpose(-1, -2))
    out["gemm_4096_forward_tflops"] = 2 * m * n * k / (ms * 1e-3) / 1e12
    out["torch_gemm_4096_forward_tflops"] = 2 * m * n * k / (t_ms * 1e-3) / 1e12
    rm, rn = 16384, 8192
    x = torch.randn(rm, rn, device="cuda", dtype=torch.bfloat16)
    wv = torch.ones(rn, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    ms = median_ms(lambda: lib.kopt_rmsnorm_bf16_forward(ptr(x), ptr(wv), ptr(y), rm, rn, ctypes.c_float(1e-6), stream()))
    t_ms = median_ms(lambda: torch.nn.functional.rms_norm(x, (rn,), wv, 1e-6))
    out["rmsnorm_16384x8192_forward_gbps"] = (2 * rm * rn * 2 + rn * 2) / (ms * 1e-3) / 1e9
    out["torch_rmsnorm_16384x8192_forward_gbps"] = (2 * rm * rn * 2 + rn * 2) / (t_ms * 1e-3) / 1e9
    out["note"] = "warm-cache, same buffers, median of 20: a sanity number, not the campaign metric"
    return out


def main():
    args = parse_args()
    global torch
    try:
        import torch  # noqa: F401
    except ImportError as e:
        print(f"check_against_torch: torch is not importable: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("check_against_torch: torch sees no GPU", file=sys.stderr)
        return 2
    try:
        lib = load_library(args.lib)
    except OSError as e:
        print(f"check_against_torch: cannot load {args.lib}: {e}", file=sys.stderr)
        return 2
    torch.manual_seed(args.seed)
    result = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "seed": args.seed,
              "gemm": [], "rmsnorm": [], "errors": []}
    t0 = time.time()
    for shape in ((1, 512, 512, 512), (1, 1000, 1000, 1000), (1, 129, 257, 65), (3, 512, 384, 260), (1, 1, 4096, 512),
                  (1, 64, 64, 4104), (1, 4096, 4096, 4096), (1, 2048, 8192, 1024)):
        try:
            result["gemm"].append(gemm_case(lib, *shape))
        except Exception as e:  # a failing case is recorded, the rest still run
            result["gemm"].append({"shape": list(shape), "pass": False, "error": str(e)})
    for shape in ((3, 5), (1000, 1001), (4096, 4096), (257, 12288), (8192, 8192), (7, 40000), (2, 65536)):
        try:
            result["rmsnorm"].append(rmsnorm_case(lib, *shape))
        except Exception as e:
            result["rmsnorm"].append({"shape": list(shape), "pass": False, "error": str(e)})
    result["check_seconds"] = time.time() - t0
    for name, fn in (("speed", lambda: kernel_speed(lib)), ("ceilings", None if args.skip_ceilings else ceilings)):
        if fn is None:
            continue
        try:
            result[name] = fn()
        except Exception as e:
            result["errors"].append(f"{name}: {e}")
    result["all_pass"] = all(c.get("pass") for c in result["gemm"] + result["rmsnorm"])
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1, default=str)
    for kind in ("gemm", "rmsnorm"):
        for c in result[kind]:
            keys = [k for k in c if k.endswith("_rel_err") and not k.endswith("torch_rel_err")]
            errs = " ".join(f"{k[:-8]}={c[k]:.2e}(torch {c.get(k[:-8] + '_torch_rel_err', float('nan')):.2e})"
                            for k in keys)
            shape = {k: c[k] for k in ("B", "M", "N", "K") if k in c} or c.get("shape")
            print(f"{kind} {shape} {'PASS' if c.get('pass') else 'FAIL'} {errs} {c.get('error', '')}")
    if "ceilings" in result:
        print(f"torch ceilings: copy {result['ceilings']['copy_gbps']:.0f} GB/s, "
              f"bf16 matmul {result['ceilings']['matmul_bf16_tflops']:.0f} TFLOPS")
    if "speed" in result:
        print("speed:", json.dumps(result["speed"]))
    print("all_pass:", result["all_pass"])
    return 0 if result["all_pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
