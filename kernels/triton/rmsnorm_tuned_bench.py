#!/usr/bin/env python3
"""Quick-harness config of the autotuned Triton RMSNorm (rmsnorm_tuned.py): 5 shapes, bf16,
memory-bound schema.

    python kernels/triton/rmsnorm_tuned_bench.py --summary-csv out.csv --samples out.jsonl [--shapes t64k_1k] [--seed N]

Shapes are (label, B, M, N): x is [B*M, N] (tokens x hidden), w is [N]. The harness pins the
backward's autotuned config across processes of one tree (KOPT_AUTOTUNE_CACHE_DIR,
harness/CONTRACT.md) and prints it per shape on stderr.
"""
import os
import sys

from bench_common import HERE, harness

SHAPES = [
    ("t4k_4k", 1, 4096, 4096),      # 32 MB per tensor: fits the H100/H200 L2 if the harness did not flush it
    ("t16k_8k", 1, 16384, 8192),
    ("t32k_4k", 1, 32768, 4096),
    ("t8k_14k", 1, 8192, 14336),    # hidden size not a power of two: a 16384-wide block, masked lanes
    ("t64k_1k", 1, 65536, 1024),    # short rows: the shape SMALL_ROW_PROGRAMS_PER_SM is about
]

CONFIG = {
    "BACKEND": "TRITON",
    "KIND": "memory",
    "KERNEL_MODULE": os.path.join(HERE, "rmsnorm_tuned.py"),
    "FORWARD": "forward",
    "BACKWARD": "backward",
    "INPUT_DTYPE": "bf16",
    "CHECK": "bf16",
    "SHAPES": SHAPES,
}

if __name__ == "__main__":
    sys.exit(harness.main(config=CONFIG))
