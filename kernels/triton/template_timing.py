#!/usr/bin/env python3
"""The skill template's timing loop (loop-contract section 4) on the same Triton kernels and shapes,
for comparison with the kopt harness (docs/gpu-validation.md). Deliberately NOT hardened:
the same input tensors for every call, time.perf_counter between torch.cuda.synchronize() calls,
one warm-up repeat dropped, then 3 repeats x 50 back-to-back iterations, no cache flush. Per repeat:
mean call time and TFLOPS (GB/s); the CSV reports the mean over repeats and the population stddev
of the per-repeat metric. Check: one call against the fp32 reference (the same classes as the
harness). The samples file's `times` are the 3 per-repeat mean call times (stop "max_samples"), so
kopt's gate can be run on this loop's output too.

    python kernels/triton/template_timing.py matmul  --summary-csv t.csv --samples t.jsonl [--shapes mm_4k] [--seed N]
    python kernels/triton/template_timing.py rmsnorm --summary-csv t.csv --samples t.jsonl
KOPT_PLANT_SLOWDOWN works as for matmul_bench.py / rmsnorm_bench.py.
"""
import sys
import time

from bench_common import HERE, harness

REPEATS = 3
ITERATIONS = 50


def _configs():
    import matmul_bench
    import rmsnorm_bench
    return {"matmul": matmul_bench.CONFIG, "rmsnorm": rmsnorm_bench.CONFIG}


class _Dev:
    def __init__(self, torch):
        self.dev = torch.device("cuda", torch.cuda.current_device())


def _repeat_ms(torch, fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(ITERATIONS):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / ITERATIONS * 1e3


def measure(torch, op, shape, seed, check_class):
    gen = torch.Generator(device=op.device.dev)
    gen.manual_seed(harness._label_seed(seed, shape["label"]))
    inputs = op.make_inputs(shape, gen)
    ref = op.reference_forward(inputs)
    outs = op.forward(inputs)
    torch.cuda.synchronize()
    f_snrs, f_ok, f_bad, f_err = harness._compare(check_class, ref, outs)
    grads_out = op.grad_like(ref, outs[0].dtype, gen)
    ref_g = op.reference_backward(inputs, grads_out)
    if op.backward_fn is None:
        raise harness.HarnessError("template timing needs an explicit backward (50 calls on one graph)", 2)
    grads = op.backward_fn(*inputs, *grads_out)
    torch.cuda.synchronize()
    b_snrs, b_ok, b_bad, b_err = harness._compare(check_class, ref_g, harness._as_tuple(grads))
    passed = harness.check_verdict(check_class, f_snrs + b_snrs, f_ok and b_ok, f_bad + b_bad)

    row = {"label": shape["label"], **{k: v for k, v in shape.items() if k != "label"},
           "Check": "PASS" if passed else "FAIL"}
    series = []
    for direction, fn in (("forward", lambda: op.forward_fn(*inputs)),
                          ("backward", lambda: op.backward_fn(*inputs, *grads_out))):
        _repeat_ms(torch, fn)  # warm-up repeat, dropped
        times = [_repeat_ms(torch, fn) for _ in range(REPEATS)]
        if op.kind == "gemm":
            work, scale, name = op.flops(shape, direction), 1e12, "TFLOPS"
        else:
            res = harness._as_tuple(fn())
            work, scale, name = op.bytes(shape, inputs, res, grads_out if direction == "backward" else (), direction), 1e9, "GB/s"
        per_repeat = [work / (t * 1e-3) / scale for t in times]
        prefix = "Forward" if direction == "forward" else "Backward"
        row["%s %s" % (prefix, name)] = harness.mean(per_repeat)
        row["%s %s_stddev" % (prefix, name)] = harness.pstddev(per_repeat)
        row["%s Time (ms)" % prefix] = harness.mean(times)
        series.append({"label": shape["label"], "direction": direction, "times": times, "stop": "max_samples",
                       "flops": work if op.kind == "gemm" else None, "bytes": work if op.kind != "gemm" else None})
    if op.kind == "gemm":
        row["out_snr"] = f_snrs[0]
        row["da_snr"], row["db_snr"] = b_snrs[0], b_snrs[1]
    else:
        row["max_abs_err"] = max(f_err, b_err)
    return row, series


def main(argv):
    configs = _configs()
    if not argv or argv[0] not in configs:
        print("usage: template_timing.py {%s} [--summary-csv PATH] [--samples PATH] [--shapes L1,L2] [--seed N]"
              % "|".join(configs), file=sys.stderr)
        return 2
    cfg = dict(configs[argv[0]])
    try:
        args = harness.parse_args(argv[1:])
        shapes = harness.select_shapes(harness.normalize_shapes(cfg["SHAPES"], cfg["KIND"]), args.shape_list)
        import torch
        if not torch.cuda.is_available():
            raise harness.HarnessError("no GPU visible to torch")
        module = harness.load_kernel_module(cfg["KERNEL_MODULE"], HERE)
        cfg["KERNEL_HOOK"](module, shapes)
        dev = _Dev(torch)
        op = harness.Op(cfg, module, dev, harness.torch_dtype(cfg["INPUT_DTYPE"], torch.version.hip is not None,
                                                                getattr(torch.cuda.get_device_properties(0), "gcnArchName", "")))
        rows, series = [], []
        for shape in shapes:
            try:
                row, s = measure(torch, op, shape, args.seed, cfg["CHECK"])
            except harness.HarnessError:
                raise
            except Exception as e:
                print("template_timing: shape %s: %s: %s" % (shape["label"], type(e).__name__, e), file=sys.stderr)
                row, s = harness.failed_row(shape, cfg["KIND"]), []
            rows.append(row)
            series.extend(s)
        text = harness.csv_text(cfg["KIND"], rows)
        if args.summary_csv:
            harness.write_atomically(args.summary_csv, text)
        else:
            sys.stdout.write(text)
        if args.samples:
            name = torch.cuda.get_device_properties(0).name
            harness.write_atomically(args.samples, harness.samples_text(name, args.seed, series).replace(
                '"harness":"%s"' % harness.HARNESS_NAME, '"harness":"template_timing"', 1))
        return 0
    except harness.HarnessError as e:
        print("template_timing: %s" % e, file=sys.stderr)
        return e.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
