#!/usr/bin/env python3
"""Quick-harness config of the Triton RMSNorm (rmsnorm.py): 5 shapes, bf16, memory-bound schema.

    python kernels/triton/rmsnorm_bench.py --summary-csv out.csv --samples out.jsonl [--shapes rms_8k_8k] [--seed N]
    KOPT_PLANT_SLOWDOWN=rms_16k_4k:0.03 python kernels/triton/rmsnorm_bench.py ...   # planted 3% slowdown

Shapes are (label, B, M, N): x is [B*M, N] (tokens x hidden), w is [N].
"""
import os
import sys

from bench_common import HERE, harness, plant_hook

SHAPES = [
    ("rms_1k_1k", 1, 1024, 1024),     # 2 MB: launch-bound
    ("rms_4k_4k", 1, 4096, 4096),     # 32 MB: fits the H200 L2 if the harness did not flush it
    ("rms_16k_4k", 1, 16384, 4096),
    ("rms_8k_8k", 1, 8192, 8192),
    ("rms_6k_5120", 1, 6000, 5120),   # hidden size not a power of two: masked lanes
]

CONFIG = {
    "BACKEND": "TRITON",
    "KIND": "memory",
    "KERNEL_MODULE": os.path.join(HERE, "rmsnorm.py"),
    "FORWARD": "forward",
    "BACKWARD": "backward",
    "INPUT_DTYPE": "bf16",
    "CHECK": "bf16",
    "SHAPES": SHAPES,
    "KERNEL_HOOK": plant_hook(SHAPES, "memory", lambda s: (s["B"] * s["M"], s["N"])),
}

if __name__ == "__main__":
    sys.exit(harness.main(config=CONFIG))
