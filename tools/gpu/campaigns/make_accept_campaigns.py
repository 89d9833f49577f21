#!/usr/bin/env python3
"""Writes issue 15's campaigns of the shipped Triton kernels measured by persistent bench workers:
triton_{matmul,rmsnorm}_accept.json, the steps of triton_matmul.json (define, baseline, three
one-knob rounds, a stagnation review, final_acceptance, report) on the worker manifests
(triton_*_worker.yaml) with each kernel's own rounds. The rounds are real edits of a knob; which
ones kopt accepts is what the H200 run shows.

    python3 tools/gpu/campaigns/make_accept_campaigns.py
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# (knob line before, after, statement's reason, expected size %) per round, per kernel.
ROUNDS = {
    "matmul": [
        ("BLOCK_K = 32", "BLOCK_K = 64", "a 64-deep K tile feeds wgmma longer per stage", 10),
        ("BLOCK_M = 128", "BLOCK_M = 64", "64-row tiles give more programs per SM", 3),
        ("NUM_WARPS = 4", "NUM_WARPS = 8", "8 warps split the 128x128 tile's MMA work", 5),
    ],
    "rmsnorm": [
        ("FWD_NUM_WARPS = 8", "FWD_NUM_WARPS = 4",
         "4 warps cover a 1-4k row with fewer idle lanes and more resident programs per SM", 5),
        ("BWD_PROGRAMS = 264", "BWD_PROGRAMS = 132", "one backward program per SM halves the partial dw sums", 3),
        ("BWD_NUM_WARPS = 8", "BWD_NUM_WARPS = 4", "4 warps per backward program leave more registers per row", 3),
    ],
}
METRIC = {"matmul": "Combined Step TFLOPS", "rmsnorm": "Backward GB/s"}
DIRECTIONS = {
    "matmul": ["compute: tensor-core MMA", "memory: multi-stage smem pipeline", "tiling: per-shape tiles"],
    "rmsnorm": ["memory: one pass over x in backward", "parallelism: rows per program", "dw: atomics vs partial sums"],
}


def knob(line):
    return line.split(" = ")[0]


def campaign(kernel):
    base = json.load(open(os.path.join(HERE, "triton_matmul.json")))
    steps = base["steps"]
    out = {"name": f"triton {kernel}_bf16 on H200, worker protocol, three one-knob rounds",
           "kernel_dir": base["kernel_dir"], "steps": []}
    rounds = iter(ROUNDS[kernel])
    current = None
    for s in steps:
        s = copy.deepcopy(s)
        if s.get("tool") == "define_target":
            s["say"] = f"DEFINE_TARGET from tools/gpu/campaigns/triton_{kernel}_worker.yaml"
            s["args"]["manifest_yaml"] = f"@file:tools/gpu/campaigns/triton_{kernel}_worker.yaml"
        elif s.get("tool") == "begin_round":
            current = next(rounds)
            before, after, why, size = current
            change = f"{knob(before)} {before.split(' = ')[1]} -> {after.split(' = ')[1]}"
            s["say"] = f"Round {s['expect']['/round']}: {change}"
            s["args"].update(statement=f"I expect {METRIC[kernel]} to increase because {why}", change=change,
                             expected_size_pct=size, files=[f"kernels/triton/{kernel}.py"])
        elif "edit" in s:
            s["edit"] = {"file": f"kernels/triton/{kernel}.py", "replace": current[0], "with": current[1]}
        elif s.get("tool") == "termination_check":
            s["args"]["directions"] = DIRECTIONS[kernel]
        out["steps"].append(s)
    return out


if __name__ == "__main__":
    for kernel in ROUNDS:
        path = os.path.join(HERE, f"triton_{kernel}_accept.json")
        with open(path, "w") as f:
            json.dump(campaign(kernel), f, indent=1)
            f.write("\n")
        print("wrote", path)
