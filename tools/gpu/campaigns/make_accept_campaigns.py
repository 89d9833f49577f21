#!/usr/bin/env python3
"""Writes issue 15's campaigns of the four sample kernels: triton_{matmul,rmsnorm}_accept.json (the
Triton kernels measured by persistent bench workers, on triton_*_worker.yaml) and
hip_{gemm,rmsnorm}_accept.json (the native HIP benches, process pairs, on manifests/hip_*.yaml).
Each has the steps of triton_matmul.json (define, baseline, three one-knob rounds, a stagnation
review, final_acceptance, report) with the kernel's own rounds. The rounds are real edits of a
knob (the HIP ones picked from a quick look, tools/gpu/hip_knob_sweep.sh, recorded in
docs/gpu-validation.md); which ones kopt accepts is what the H200 run shows.

    python3 tools/gpu/campaigns/make_accept_campaigns.py [--rmsnorm-rounds ROUNDS.json]
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (knob line before, after, statement's reason, expected size %) per round, per kernel.
ROUNDS = {
    "matmul": [
        ("BLOCK_K = 32", "BLOCK_K = 64", "a 64-deep K tile feeds wgmma longer per stage", 10),
        ("BLOCK_M = 128", "BLOCK_M = 64", "64-row tiles give more programs per SM", 3),
        ("NUM_WARPS = 4", "NUM_WARPS = 8", "8 warps split the 128x128 tile's MMA work", 5),
    ],
    "rmsnorm": [
        # Every one-knob move of the tenth and eleventh sessions (BWD_PROGRAMS, BWD_NUM_WARPS,
        # BWD_NUM_STAGES, FWD_NUM_WARPS, rows per step) lost or read nothing. The backward reads
        # 44-60 % of the copy bandwidth with a ~18 us intercept (docs/gpu-validation.md): each program
        # waits on a row's loads, then on its two reductions. Two code changes aim at that: the
        # next row loaded during this row's reductions, and the partial dw summed and cast in one
        # launch instead of torch's two. Then a warp count the look says loses.
        ("BWD_PREFETCH = False", "BWD_PREFETCH = True",
         "loading the next row while this row's two reductions run keeps HBM busy between rows", 15),
        ('DW_SUM = "torch"', 'DW_SUM = "triton"',
         "one launch that sums and casts the partial dw rows replaces torch's sum and cast", 3),
        ("BWD_NUM_WARPS = 8", "BWD_NUM_WARPS = 4", "4 warps per backward program leave more programs resident", 5),
    ],
}

# The HIP knobs a quick look (tools/gpu/hip_knob_sweep.sh) measured, by sweep variant name; the
# campaigns' rounds are three of them, chosen from that look (docs/gpu-validation.md).
HIP_CANDIDATES = {
    "gemm-bk32": ("#define KOPT_GEMM_BLOCK_K 16", "#define KOPT_GEMM_BLOCK_K 32",
                  "a 32-deep K tile halves the barriers per FMA", 3),
    "gemm-bm64": ("#define KOPT_GEMM_BLOCK_M 128", "#define KOPT_GEMM_BLOCK_M 64",
                  "64-row tiles double the blocks on the small shapes", 3),
    "gemm-vec4": ("#define KOPT_GEMM_VEC 8", "#define KOPT_GEMM_VEC 4",
                  "8-byte loads spread the tile fill over more threads", 2),
    "gemm-pad1": ("#define KOPT_GEMM_SMEM_PAD 4", "#define KOPT_GEMM_SMEM_PAD 1",
                  "a one-float pad moves the column reads off one bank with less shared memory", 2),
    "gemm-tn4": ("#define KOPT_GEMM_THREAD_N 8", "#define KOPT_GEMM_THREAD_N 4",
                 "8x4 thread tiles double the threads per block", 3),
    "rmsnorm-bpc8": ("#define KOPT_RMS_BWD_BLOCKS_PER_CU 4", "#define KOPT_RMS_BWD_BLOCKS_PER_CU 8",
                     "more backward blocks per SM keep more rows' loads in flight", 10),
    "rmsnorm-bpc2": ("#define KOPT_RMS_BWD_BLOCKS_PER_CU 4", "#define KOPT_RMS_BWD_BLOCKS_PER_CU 2",
                     "fewer backward blocks leave fewer partial dw rows to reduce", 3),
    "rmsnorm-t512": ("#define KOPT_RMS_THREADS 256", "#define KOPT_RMS_THREADS 512",
                     "512 threads per row cut the per-thread work", 5),
    "rmsnorm-t128": ("#define KOPT_RMS_THREADS 256", "#define KOPT_RMS_THREADS 128",
                     "128-thread blocks let more rows be resident per SM", 5),
    "rmsnorm-cols32": ("#define KOPT_RMS_MAX_COLS_PER_THREAD 64", "#define KOPT_RMS_MAX_COLS_PER_THREAD 32",
                       "fewer dw columns per thread free registers for more resident blocks", 5),
    "rmsnorm-cols128": ("#define KOPT_RMS_MAX_COLS_PER_THREAD 64", "#define KOPT_RMS_MAX_COLS_PER_THREAD 128",
                        "more dw columns per thread mean fewer threads per block on wide rows", 3),
}
# From the sweep of 2026-12-03 (docs/gpu-validation.md, tenth session): the best knob, a clear
# loss, and one that was mixed or small.
HIP_ROUNDS = {"hip_gemm": ["gemm-tn4", "gemm-pad1", "gemm-bk32"],
              "hip_rmsnorm": ["rmsnorm-cols32", "rmsnorm-bpc8", "rmsnorm-bpc2"]}
ROUNDS.update({k: [HIP_CANDIDATES[v] for v in names] for k, names in HIP_ROUNDS.items() if names})
# kernel -> (campaign file, manifest, knob file, primary metric, directions for the stagnation review)
KERNELS = {
    "matmul": ("triton_matmul_accept.json", "tools/gpu/campaigns/triton_matmul_worker.yaml", "kernels/triton/matmul.py",
               "Combined Step TFLOPS",
               ["compute: tensor-core MMA", "memory: multi-stage smem pipeline", "tiling: per-shape tiles"]),
    "rmsnorm": ("triton_rmsnorm_accept.json", "tools/gpu/campaigns/triton_rmsnorm_accept.yaml",
                "kernels/triton/rmsnorm.py", "Backward GB/s",
                ["memory: one pass over x in backward", "parallelism: rows per program", "dw: atomics vs partial sums"]),
    "hip_gemm": ("hip_gemm_accept.json", "tools/gpu/campaigns/hip_gemm_h200.yaml", "kernels/hip/gemm/gemm_config.h",
                 "Combined Step TFLOPS",
                 ["compute: tensor-core MMA", "memory: multi-stage smem pipeline", "tiling: per-shape tiles"]),
    "hip_rmsnorm": ("hip_rmsnorm_accept.json", "tools/gpu/campaigns/hip_rmsnorm_h200.yaml", "kernels/hip/rmsnorm/rmsnorm_config.h",
                    "Backward GB/s",
                    ["memory: one pass over x in backward", "parallelism: rows per block", "dw: partial sums per block"]),
}


def split(line):
    """'BLOCK_K = 32' or '#define KOPT_GEMM_BLOCK_K 16' -> (knob, value)."""
    if line.startswith("#define "):
        _, name, value = line.split()
        return name, value
    name, value = line.split(" = ")
    return name, value


def campaign(kernel):
    base = json.load(open(os.path.join(HERE, "triton_matmul.json")))
    steps = base["steps"]
    _, manifest, knob_file, metric, directions = KERNELS[kernel]
    out = {"name": f"{kernel} on H200, three one-knob rounds", "kernel_dir": base["kernel_dir"], "steps": []}
    rounds = iter(ROUNDS[kernel])
    current = None
    for s in steps:
        s = copy.deepcopy(s)
        if s.get("tool") == "define_target":
            s["say"] = f"DEFINE_TARGET from {manifest}"
            s["args"]["manifest_yaml"] = f"@file:{manifest}"
        elif s.get("tool") == "begin_round":
            current = next(rounds)
            before, after, why, size = current
            change = f"{split(before)[0]} {split(before)[1]} -> {split(after)[1]}"
            s["say"] = f"Round {s['expect']['/round']}: {change}"
            s["args"].update(statement=f"I expect {metric} to increase because {why}", change=change,
                             expected_size_pct=size, files=[knob_file])
        elif "edit" in s:
            s["edit"] = {"file": knob_file, "replace": current[0], "with": current[1]}
        elif s.get("tool") == "termination_check":
            s["args"]["directions"] = directions
        out["steps"].append(s)
    return out


def rmsnorm_accept_yaml():
    """The worker manifest with a 2.5 % detection target: the H200 refused the 2 % one at BASELINE
    (2026-12-03, tenth session) because rms_1k_1k's worker processes differed by 2.27 % (sd of
    session means; the per-process offset of docs/gpu-validation.md), which 32 sessions cannot
    average below 2 %. Raised knowingly, as the refusal asks, for this campaign only."""
    text = open(os.path.join(HERE, "triton_rmsnorm_worker.yaml")).read()
    assert "target_mde_pct" not in text and "\ntarget_shapes: all\n" in text
    # rms_1k_1k out of the gate: its worker processes read 0.9-4.7 % apart on the H200 (a 2 MB,
    # launch-paced shape; eleventh session: 4.73 %, the baseline refused at 2.5 %).
    text = text.replace("\ntarget_shapes: all\n", "\ntarget_shapes: [rms_4k_4k, rms_16k_4k, rms_8k_8k, rms_6k_5120]\n")
    return ("# Written by make_accept_campaigns.py: triton_rmsnorm_worker.yaml with gate.target_mde_pct 2.5\n"
            "# and without rms_1k_1k (see rmsnorm_accept_yaml() there for why).\n" + text.rstrip("\n") +
            "\n  target_mde_pct: 2.5\n")


def planted_heavy(gate, planted_per_aa=3, groups=7):
    """The gate rounds reordered as three planted rounds to one A/A, planted first: a device call
    cut short by its time budget still adds mostly planted rounds, the ones the 19-of-20 demand
    counts (the A/A side already has 54 real rounds)."""
    steps = gate["steps"]
    cut = [i for i, s in enumerate(steps) if s.get("tool") == "termination_check"]
    setup, aa, planted = steps[:5], steps[5:cut[0] + 1], steps[cut[0] + 1:cut[1] + 1]
    out, round_no = copy.deepcopy(setup), 2
    for _ in range(groups):
        for block in [planted] * planted_per_aa + [aa]:
            block = copy.deepcopy(block)
            block[0]["expect"] = {"/round": round_no}
            round_no += 1
            out.extend(block)
    out += [copy.deepcopy(s) for s in steps if s.get("tool") in ("report", "campaign_status")]
    return {"name": gate["name"] + ", three planted rounds to one A/A", "kernel_dir": gate["kernel_dir"],
            "steps": out}


if __name__ == "__main__":
    # --rmsnorm-rounds FILE: the Triton RMSNorm's rounds from a quick look on the GPU
    # (tools/gpu/triton_knob_sweep.py --pick-rounds FILE), instead of the ones above.
    if len(sys.argv) == 3 and sys.argv[1] == "--rmsnorm-rounds":
        ROUNDS["rmsnorm"] = [tuple(r) for r in json.load(open(sys.argv[2]))]
    elif len(sys.argv) != 1:
        sys.exit("usage: make_accept_campaigns.py [--rmsnorm-rounds ROUNDS.json]")
    with open(os.path.join(HERE, "triton_rmsnorm_accept.yaml"), "w") as f:
        f.write(rmsnorm_accept_yaml())
    # The gate's A/A and planted-3 % rounds (make_worker_campaigns.py) on the 2.5 % manifest, since
    # the 2 % one's BASELINE is refused on the H200 (rmsnorm_accept_yaml()), with 6 A/A sessions:
    # the planted shape read -2.3 to -3.0 % in 10 rounds on an H100 and stayed INCONCLUSIVE under
    # the SE floor 3 sessions give (4.4x the session sd; 6 sessions: 2.1x; docs/statistics.md).
    with open(os.path.join(HERE, "triton_rmsnorm_gate_rounds.yaml"), "w") as f:
        f.write(rmsnorm_accept_yaml().replace("triton_rmsnorm_worker.yaml with gate.target_mde_pct 2.5",
                                              "triton_rmsnorm_worker.yaml with gate.target_mde_pct 2.5,\n"
                                              "# gate.aa_sessions 6") + "  aa_sessions: 6\n")
    gate = json.load(open(os.path.join(HERE, "triton_rmsnorm_worker.json")))
    gate["name"] += ", on triton_rmsnorm_gate_rounds.yaml"
    gate["steps"][0]["args"]["manifest_yaml"] = "@file:tools/gpu/campaigns/triton_rmsnorm_gate_rounds.yaml"
    with open(os.path.join(HERE, "triton_rmsnorm_gate_rounds.json"), "w") as f:
        json.dump(gate, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "triton_rmsnorm_gate_planted.json"), "w") as f:
        json.dump(planted_heavy(gate), f, indent=1)
        f.write("\n")
    for kernel in ROUNDS:
        path = os.path.join(HERE, KERNELS[kernel][0])
        with open(path, "w") as f:
            json.dump(campaign(kernel), f, indent=1)
            f.write("\n")
        print("wrote", path)
