#!/usr/bin/env python3
"""Quick-harness config of the grouped GEMM (grouped_mm.py): bf16, memory-bound schema, the group
sizes drawn from the harness's seeded generator (never equal).

    python kernels/triton/grouped_mm_bench.py --summary-csv out.csv --samples out.jsonl [--seed N]

Shapes are (label, B, M, N): x is [B*M, N] (tokens x hidden), w is [8, N, N] (eight experts).
"""
import os
import sys

from bench_common import HERE, harness

SHAPES = [
    ("gg_4k_1k", 1, 4096, 1024),
    ("gg_8k_1k", 1, 8192, 1024),
]

CONFIG = {
    "BACKEND": "TRITON",
    "KIND": "memory",
    "KERNEL_MODULE": os.path.join(HERE, "grouped_mm.py"),
    "FORWARD": "forward",
    "BACKWARD": "backward",
    "INPUT_DTYPE": "bf16",
    "CHECK": "bf16",
    "SHAPES": SHAPES,
}

if __name__ == "__main__":
    sys.exit(harness.main(config=CONFIG))
