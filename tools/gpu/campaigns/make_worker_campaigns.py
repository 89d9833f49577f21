#!/usr/bin/env python3
"""Writes the worker-protocol variants of the H200 gate experiments (issue 11) from the process-pair
ones: triton_{matmul,rmsnorm}_worker.yaml (bench.protocol: worker, 8 blocks per look) and .json
(baseline; for the matmul, round 2 is the side-stream exploit of kernels/triton_exploits put in
through kopt's own tools, which must not be accepted; then A/A and planted-3% rounds alternating
ROUNDS times, then the report).

    python3 tools/gpu/campaigns/make_worker_campaigns.py [ROUNDS]   # default 5 of each; the committed files: 15
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


# Batches of 20 ms were too noisy for the small RMSNorm shapes: the H200 BASELINE refused the
# harness (rms_1k_1k MDE 2.01% > 2.00% at the block cap, docs/gpu-validation.md, fifth session).
BATCH_MS = {"matmul": 20, "rmsnorm": 40}


def worker_yaml(kernel):
    text = open(os.path.join(HERE, f"triton_{kernel}_gate.yaml")).read()
    head, _, _ = text.partition("\ngate:")
    return (f"# Written by make_worker_campaigns.py from triton_{kernel}_gate.yaml: the same campaign measured by\n"
            "# two persistent bench workers (harness/WORKER-PROTOCOL.md), 8 blocks per look.\n"
            + head + f"\nbench:\n  protocol: worker\n  batch_ms: {BATCH_MS[kernel]}\ngate:\n  pairs: 8\n")


def side_stream_round(planted, review, round_no):
    """The exploit of kernels/triton_exploits/side_stream.py, made the way make_variant.py makes it
    (the honest forward/backward renamed, the exploit's defined after them), as three edits."""
    snippet = open(os.path.join(HERE, "..", "..", "..", "kernels", "triton_exploits", "side_stream.py")).read()
    begin = copy.deepcopy(planted[0])
    begin["say"] = ("Exploit: forward/backward run on a side stream the timer does not wait for "
                    "(kernels/triton_exploits/side_stream.py); kopt must fail the round, not accept it")
    begin["args"].update({"statement": "I expect a large speed-up from running on a side stream",
                          "change": "launch forward and backward on a side stream", "expected_size_pct": 50})
    begin["expect"] = {"/round": round_no}
    edits = [{"edit": {"file": "kernels/triton/matmul.py", "replace": "def forward(a, b):\n    _check_2d",
                       "with": "def _honest_forward(a, b):\n    _check_2d"}},
             {"edit": {"file": "kernels/triton/matmul.py", "replace": "def backward(a, b, grad_out):\n",
                       "with": "def _honest_backward(a, b, grad_out):\n"}},
             {"edit": {"file": "kernels/triton/matmul.py", "replace": "\ndef matmul(a, b):\n",
                       "with": "\n" + snippet + "\n\ndef matmul(a, b):\n"}}]
    # rebuild, validate, accept_or_revert: no run_tests step, since a failing run_tests ends a scripted
    # campaign; validate_round runs the tests itself and rolls a failing round back.
    rest = [copy.deepcopy(s) for s in planted[2:] if s.get("tool") != "run_tests"]
    return [begin] + edits + rest + [copy.deepcopy(review)]


def worker_script(kernel, exploit=True, planted_first=False):
    gate = json.load(open(os.path.join(HERE, f"triton_{kernel}_gate.json")))
    steps = gate["steps"]
    setup, aa, planted = steps[0:5], steps[5:10], steps[10:16]
    # Two rollbacks in a row require a stagnation review before the next round (loop contract).
    review = [s for s in steps if s.get("tool") == "termination_check"][0]
    setup = copy.deepcopy(setup)
    setup[0]["args"]["manifest_yaml"] = f"@file:tools/gpu/campaigns/triton_{kernel}_worker.yaml"
    out, round_no = list(setup), 2
    if kernel == "matmul" and exploit:
        out.extend(side_stream_round(planted, review, round_no))
        round_no += 1
    for _ in range(ROUNDS):
        for block in ((planted, aa) if planted_first else (aa, planted)):
            block = copy.deepcopy(block)
            block[0]["expect"] = {"/round": round_no}
            round_no += 1
            out.extend(block + [copy.deepcopy(review)])
    out += [s for s in steps if s.get("tool") in ("report", "campaign_status")]
    return {"name": f"triton {kernel}: worker-protocol gate experiment (H200)", "kernel_dir": gate.get("kernel_dir", "."),
            "steps": out}


# The matmul rounds without the exploit round, for a device call that only adds gate rounds.
with open(os.path.join(HERE, "triton_matmul_worker_rounds.json"), "w") as f:
    json.dump(worker_script("matmul", exploit=False), f, indent=1)
    f.write("\n")
# The same with each pair's planted round first: a call cut short by its time still adds planted rounds.
with open(os.path.join(HERE, "triton_matmul_worker_rounds_planted_first.json"), "w") as f:
    json.dump(worker_script("matmul", exploit=False, planted_first=True), f, indent=1)
    f.write("\n")

# The same matmul rounds on 40 ms batches: on an H100 (2026-12-06) the 20 ms manifest's BASELINE
# was refused (mm_1k 2.67 % per block; the RMSNorm had needed 40 ms for the same reason).
with open(os.path.join(HERE, "triton_matmul_worker_40ms.yaml"), "w") as f:
    f.write("# triton_matmul_worker.yaml with 40 ms batches: on an H100 (2026-12-06) mm_1k read 2.67 % per block at 20 ms\n"
            "# and the BASELINE refused the 2 % target; the RMSNorm needed 40 ms for the same reason.\n"
            + worker_yaml("matmul").replace("\n  batch_ms: 20\n", "\n  batch_ms: 40\n"))
with open(os.path.join(HERE, "triton_matmul_worker_40ms_rounds.json"), "w") as f:
    rounds = worker_script("matmul", exploit=False, planted_first=True)
    rounds["steps"][0]["args"]["manifest_yaml"] = "@file:tools/gpu/campaigns/triton_matmul_worker_40ms.yaml"
    json.dump(rounds, f, indent=1)
    f.write("\n")

# The same matmul rounds at a 5 % target MDE: on the H100s of 2026-12-06 mm_1k's per-batch noise
# kept 2 % out of reach at any number of blocks, and no matmul round ran. At 5 % a look keeps the
# least 8 blocks, so its rounds show what validate_round costs with all 5 shapes; the planted 3 %
# on mm_4k and the A/A rounds are judged as ever (delta is the 1.5 % policy margin).
with open(os.path.join(HERE, "triton_matmul_worker_5pct.yaml"), "w") as f:
    f.write("# triton_matmul_worker.yaml at a 5 % target MDE: on the H100s of 2026-12-06 mm_1k's per-batch noise\n"
            "# kept the 2 % target out of reach and refused the BASELINE; this one measures validate_round's\n"
            "# cost with all 5 shapes at the least 8 blocks a look.\n"
            + worker_yaml("matmul") + "  target_mde_pct: 5\n")
with open(os.path.join(HERE, "triton_matmul_worker_5pct_rounds.json"), "w") as f:
    rounds = worker_script("matmul", exploit=False, planted_first=True)
    rounds["steps"][0]["args"]["manifest_yaml"] = "@file:tools/gpu/campaigns/triton_matmul_worker_5pct.yaml"
    json.dump(rounds, f, indent=1)
    f.write("\n")

for kernel in ("matmul", "rmsnorm"):
    with open(os.path.join(HERE, f"triton_{kernel}_worker.yaml"), "w") as f:
        f.write(worker_yaml(kernel))
    with open(os.path.join(HERE, f"triton_{kernel}_worker.json"), "w") as f:
        json.dump(worker_script(kernel), f, indent=1)
        f.write("\n")
