#!/usr/bin/env python3
"""A correctness gate around any bench harness that follows the shared command-line contract.

    python3 tools/gpu/require_all_pass.py <bench command ...>

Runs the command with `--summary-csv` and `--samples` pointing at a temporary directory (plus any
options given after the command, e.g. a short sampling budget), then exits 0 only when the harness
exited 0 and every row's Check is PASS. Used as `test_command` for kernels whose harness has no
check-only mode (the Triton samples); the HIP benches have `--check-only` themselves.
Exit codes: 0 all PASS, 1 a row is not PASS or the table is empty, 2 the harness failed.
"""
import csv
import os
import subprocess
import sys
import tempfile


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2 if not argv else 0
    with tempfile.TemporaryDirectory(prefix="kopt_require_pass_") as tmp:
        table = os.path.join(tmp, "bench.csv")
        samples = os.path.join(tmp, "samples.jsonl")
        rc = subprocess.call(list(argv) + ["--summary-csv", table, "--samples", samples])
        if rc != 0:
            print(f"require_all_pass: the harness exited {rc}", file=sys.stderr)
            return 2
        try:
            with open(table, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            print(f"require_all_pass: no table written: {e}", file=sys.stderr)
            return 2
    if not rows:
        print("require_all_pass: the table has no rows", file=sys.stderr)
        return 1
    bad = [r for r in rows if r.get("Check") != "PASS"]
    for r in rows:
        print(f"{r.get('label')}: {r.get('Check')}")
    if bad:
        print("require_all_pass: not PASS: " + ", ".join(str(r.get("label")) for r in bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
