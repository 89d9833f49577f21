#!/usr/bin/env python3
"""Where a look's batch wall time goes, per shape, averaged over every worker log of a campaign's
validate_round looks (the `time: batches` line each worker writes at `row`; harness BatchTime):

    python3 tools/gpu/batch_wall_split.py CAMPAIGN_RECORDS_DIR

The parts add up to the wall time: the host queueing the calls, queueing their checks, waiting on
the device at the end, and the rest (the joined calls, which wait for the device's whole backlog,
the confirmations and the one read of the results). `spins asked` overlaps them (device time the
host does not wait on). Averages per arm and look; `device slot` is the median device time of one
call's slot (the call, its share of the checks, the next refill and flush).
"""
import collections
import os
import re
import sys

LINE = re.compile(
    r"time: batches (\S+): (\d+) batches ([\d.]+) ms, spins asked ([\d.]+) ms, queueing calls ([\d.]+) ms, "
    r"queueing checks ([\d.]+) ms, waiting on the device ([\d.]+) ms, joined calls, confirmations and the results "
    r"read ([\d.]+) ms, device per call slot \(median of (\d+)\) ([\d.]+) ms")
LOG = re.compile(r"r\d+-validate-full-\d+-s\d+-(best|candidate)\.log$")
COLUMNS = ("batches", "wall", "spins asked", "queueing calls", "queueing checks", "waiting on device",
           "joined, confirmations, results", "slots timed", "device slot ms")


def collect(root):
    per_shape = collections.OrderedDict()
    for folder, _dirs, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not LOG.search(name):
                continue
            with open(os.path.join(folder, name), errors="replace") as f:
                for line in f:
                    m = LINE.search(line)
                    if m:
                        per_shape.setdefault(m.group(1), []).append([float(x) for x in m.groups()[1:]])
    return per_shape


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    per_shape = collect(argv[1])
    if not per_shape:
        sys.exit("batch_wall_split: no 'time: batches' lines in validate_round worker logs under " + argv[1])
    print("| shape | arm-looks | " + " | ".join(COLUMNS) + " | rest of wall |")
    print("|---" * (len(COLUMNS) + 3) + "|")
    for shape, rows in per_shape.items():
        avg = [sum(r[i] for r in rows) / len(rows) for i in range(len(COLUMNS))]
        cells = ["%.0f" % v for v in avg[:-1]] + ["%.2f" % avg[-1]]
        print("| %s | %d | %s | %.0f %% |" % (shape, len(rows), " | ".join(cells), 100 * avg[6] / avg[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
