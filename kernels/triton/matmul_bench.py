#!/usr/bin/env python3
"""Quick-harness config of the Triton matmul (matmul.py): 5 shapes, bf16, forward + backward.

    python kernels/triton/matmul_bench.py --summary-csv out.csv --samples out.jsonl [--shapes mm_4k] [--seed N]
    KOPT_PLANT_SLOWDOWN=mm_4k:0.03 python kernels/triton/matmul_bench.py ...   # planted 3% slowdown

All options of harness/python/quick_test_bench.py apply (--min-samples, --target-rsd, --time-cap-s ...).
"""
import os
import sys

from bench_common import HERE, harness, plant_hook

SHAPES = [
    ("mm_1k", 1, 1024, 1024, 1024),      # small: launch and tail effects dominate
    ("mm_4k", 1, 4096, 4096, 4096),
    ("mm_8k", 1, 8192, 8192, 8192),      # large square: compute-bound
    ("mlp_up", 1, 4096, 14336, 4096),    # a transformer MLP up-projection (4k tokens)
    ("skinny", 1, 256, 8192, 8192),      # few rows: too few tiles to fill the GPU
]

CONFIG = {
    "BACKEND": "TRITON",
    "KIND": "gemm",
    "KERNEL_MODULE": os.path.join(HERE, "matmul.py"),
    "FORWARD": "forward",
    "BACKWARD": "backward",
    "INPUT_DTYPE": "bf16",
    "CHECK": "bf16",
    "SHAPES": SHAPES,
    "KERNEL_HOOK": plant_hook(SHAPES, "gemm", lambda s: (s["M"], s["N"], s["K"])),
}

if __name__ == "__main__":
    sys.exit(harness.main(config=CONFIG))
