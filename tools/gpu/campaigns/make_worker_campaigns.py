#!/usr/bin/env python3
"""Writes the worker-protocol variants of the H200 gate experiments (issue 11) from the process-pair
ones: triton_{matmul,rmsnorm}_worker.yaml (bench.protocol: worker, 8 blocks per look) and .json
(baseline, then A/A and planted-3% rounds alternating ROUNDS times, then the report).

    python3 tools/gpu/campaigns/make_worker_campaigns.py [ROUNDS]   # default 5 of each
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def worker_yaml(kernel):
    text = open(os.path.join(HERE, f"triton_{kernel}_gate.yaml")).read()
    head, _, _ = text.partition("\ngate:")
    return (f"# Written by make_worker_campaigns.py from triton_{kernel}_gate.yaml: the same campaign measured by\n"
            "# two persistent bench workers (docs/worker-protocol.md), 8 blocks per look.\n"
            + head + "\nbench:\n  protocol: worker\n  batch_ms: 20\ngate:\n  pairs: 8\n")


def worker_script(kernel):
    gate = json.load(open(os.path.join(HERE, f"triton_{kernel}_gate.json")))
    steps = gate["steps"]
    setup, aa, planted = steps[0:5], steps[5:10], steps[10:16]
    # Two rollbacks in a row require a stagnation review before the next round (loop contract).
    review = [s for s in steps if s.get("tool") == "termination_check"][0]
    setup = copy.deepcopy(setup)
    setup[0]["args"]["manifest_yaml"] = f"@file:tools/gpu/campaigns/triton_{kernel}_worker.yaml"
    out, round_no = list(setup), 2
    for _ in range(ROUNDS):
        for block in (aa, planted):
            block = copy.deepcopy(block)
            block[0]["expect"] = {"/round": round_no}
            round_no += 1
            out.extend(block + [copy.deepcopy(review)])
    out += [s for s in steps if s.get("tool") in ("report", "campaign_status")]
    return {"name": f"triton {kernel}: worker-protocol gate experiment (H200)", "kernel_dir": gate.get("kernel_dir", "."),
            "steps": out}


for kernel in ("matmul", "rmsnorm"):
    with open(os.path.join(HERE, f"triton_{kernel}_worker.yaml"), "w") as f:
        f.write(worker_yaml(kernel))
    with open(os.path.join(HERE, f"triton_{kernel}_worker.json"), "w") as f:
        json.dump(worker_script(kernel), f, indent=1)
        f.write("\n")
