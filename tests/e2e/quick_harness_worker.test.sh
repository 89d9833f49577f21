#!/usr/bin/env bash
# harness/python/quick_test_bench.py --serve (harness/WORKER-PROTOCOL.md) on CPU tensors, driven over pipes by a
# small python3 client: hello's csv_header equals the CLI's header line; prepare/batch/row on an
# honest kernel (PASS, errors 0, positive times, the row matches the CLI's format); a kernel that
# returns a cached output (batch errors > 0, row FAIL); a kernel that prints to stdout (replies still
# parse); refused requests (unknown op, unknown shape, bad seed, batch before prepare) are ok:false
# and the worker keeps answering; quit and EOF both exit 0; a kernel that patches a timer during a
# call stops the worker (exit 3).
# Needs a python3 with torch (Debian: python3-torch); skipped (77) without one.
set -euo pipefail
src=${KOPT_SOURCE_DIR:?KOPT_SOURCE_DIR must point at the kopt source tree}
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with torch"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONDONTWRITEBYTECODE=1

mk() { cat >"$work/$1.py"; }
mk honest <<'EOF'
def forward(a, b): return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk shape_cache <<'EOF'
_c = {}
def forward(a, b):
    k = tuple(a.shape)
    if k not in _c: _c[k] = a @ b
    return _c[k].clone()
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk chatty <<'EOF'
import os, sys
print("chatty kernel: imported")
def forward(a, b):
    print('{"id":1,"ok":true,"fake":"reply"}')
    sys.stdout.flush()
    os.write(1, b"raw bytes on fd 1\n")
    return a @ b
def backward(a, b, g):
    print("chatty backward")
    return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
mk tamper_lazy <<'EOF'
def forward(a, b):
    import time
    time.perf_counter = lambda: 0.0
    return a @ b
def backward(a, b, g): return g @ b.transpose(-1, -2), a.transpose(-1, -2) @ g
EOF
cat >"$work/config.py" <<EOF
import os, sys
sys.path.insert(0, "$src/harness/python")
import quick_test_bench as h
cfg = dict(BACKEND="TORCH", KIND="gemm", KERNEL_MODULE=os.path.join("$work", os.environ["MOD"] + ".py"),
           FORWARD="forward", BACKWARD="backward", INPUT_DTYPE="fp32", CHECK="fp32",
           SHAPES=[("s1", 1, 64, 48, 32), ("s2", 2, 40, 24, 20)])
sys.exit(h.main(config=cfg))
EOF

# The CLI's header, for hello's csv_header (kopt compares them byte for byte).
MOD=honest "$py" "$work/config.py" --device cpu --shapes s1 --summary-csv "$work/cli.csv" \
  --time-cap-s 0.05 --min-samples 3 2>"$work/cli.log" || { cat "$work/cli.log"; echo "FAIL: CLI run" >&2; exit 1; }
head -n 1 "$work/cli.csv" >"$work/header.txt"

cat >"$work/driver.py" <<'EOF'
"""Drives one worker: python3 driver.py SCENARIO PYTHON CONFIG. Exits 1 with a message on the first
broken expectation."""
import json, os, re, subprocess, sys

scenario, python, config = sys.argv[1:4]
work = os.path.dirname(config)
header = open(os.path.join(work, "header.txt")).read().rstrip("\n")
mod = {"honest": "honest", "cached": "shape_cache", "chatty": "chatty", "refusals": "honest",
       "eof": "honest", "tamper": "tamper_lazy"}[scenario]
proc = subprocess.Popen([python, config, "--device", "cpu", "--serve"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=open(os.path.join(work, scenario + ".log"), "w"),
                        env=dict(os.environ, MOD=mod), text=True)
next_id = [0]


def fail(msg):
    proc.kill()
    sys.exit("FAIL (%s): %s" % (scenario, msg))


def send_raw(line):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    reply = proc.stdout.readline()
    if not reply:
        fail("no reply to %s (worker exited %s)" % (line, proc.wait()))
    try:
        return json.loads(reply)
    except ValueError:
        fail("reply is not JSON: %r" % reply)


def req(op, expect_ok=True, **fields):
    next_id[0] += 1
    r = send_raw(json.dumps(dict(id=next_id[0], op=op, **fields)))
    if r.get("id") != next_id[0]:
        fail("reply id %r for request %d" % (r.get("id"), next_id[0]))
    if r.get("ok") is not expect_ok:
        fail("%s: expected ok=%s, got %r" % (op, expect_ok, r))
    if not expect_ok and (not isinstance(r.get("error"), str) or not r["error"] or "\n" in r["error"]):
        fail("%s: an ok:false reply needs a one-line error: %r" % (op, r))
    return r


def finish(quit=True):
    if quit:
        req("quit")
    proc.stdin.close()
    rc = proc.wait(timeout=120)
    if rc != 0:
        fail("worker exited %d, expected 0" % rc)
    if proc.stdout.read() != "":
        fail("output after the last reply")


h = req("hello", protocol=1)
if h.get("protocol") != 1 or h.get("csv_header") != header or h.get("shapes") != ["s1", "s2"]:
    fail("hello: %r (CLI header %r)" % (h, header))
if not isinstance(h.get("harness"), str) or not isinstance(h.get("device"), str):
    fail("hello: harness/device must be strings: %r" % h)
if h.get("warm") is not True:
    fail("hello: a harness with its kernel loaded offers warm: %r" % h)

def prepare(shape, seed="12345678901234567890"):
    r = req("prepare", shape=shape, seed=seed)
    if r.get("shape") != shape:
        fail("prepare: shape %r" % r)
    return r

def batch(shape, calls, seed):
    r = req("batch", shape=shape, calls=calls, seed=seed)
    if r.get("shape") != shape or not isinstance(r.get("errors"), int) or r["errors"] < 0:
        fail("batch: %r" % r)
    dirs = [s.get("direction") for s in r.get("series", [])]
    if dirs != ["forward", "backward"]:
        fail("batch: directions %r" % dirs)
    for s in r["series"]:
        t = s.get("times_ms")
        if not isinstance(t, list) or len(t) != calls or not all(isinstance(x, float) and x > 0 for x in t):
            fail("batch: %d positive times per direction expected: %r" % (calls, s))
        if not (isinstance(s.get("flops"), float) and s["flops"] > 0) or s.get("bytes") is not None:
            fail("batch: a GEMM series has flops and bytes null: %r" % s)
    if not (isinstance(r.get("wall_ms"), float) and r["wall_ms"] > 0) or "idle_probe_us" not in r:
        fail("batch: wall_ms / idle_probe_us: %r" % r)
    if r["idle_probe_us"] is not None:
        fail("batch: idle_probe_us must be null on the CPU: %r" % r)
    return r

def row(shape):
    r = req("row", shape=shape)
    if r.get("shape") != shape or not isinstance(r.get("row"), str):
        fail("row: %r" % r)
    cells = r["row"].split(",")
    if len(cells) != len(header.split(",")) or cells[0] != shape:
        fail("row: %d cells for a %d-column header: %r" % (len(cells), len(header.split(",")), r["row"]))
    return cells

def honest_round(shape):
    p = prepare(shape)
    ms = p.get("call_ms", {})
    if p.get("check") != "PASS" or p.get("problem") != "" or sorted(ms) != ["backward", "forward"] or \
            not all(isinstance(v, float) and v > 0 for v in ms.values()):
        fail("prepare of an honest kernel: %r" % p)
    total = 0
    for seed in ("1", "18446744073709551615", "42"):
        b = batch(shape, 5, seed)
        if b["errors"] != 0:
            fail("honest batch with errors: %r" % b)
        total += 5
    cells = row(shape)
    if cells[5] != "PASS":
        fail("honest row must PASS: %r" % cells)
    for i in (6, 8, 10, 11):  # forward/backward TFLOPS and times
        if not float(cells[i]) > 0:
            fail("honest row: column %d is %r" % (i, cells[i]))
    if any(re.fullmatch(r"-?[0-9.e+-]+|nan|inf|-inf", c) is None for c in cells[6:]):
        fail("row numbers not in the CLI's %%.6g format: %r" % cells)

if scenario in ("honest", "chatty"):
    # kopt's warm before the first prepare: the full check once, thrown away
    w = req("warm", shape="s1", seed="7")
    if w.get("shape") != "s1" or w.get("check") != "PASS" or not (isinstance(w.get("ms"), float) and w["ms"] >= 0):
        fail("warm of an honest kernel: %r" % w)
    req("warm", expect_ok=False, shape="nope", seed="7")
    honest_round("s1")
    honest_round("s2")
    finish()
elif scenario == "cached":
    p = prepare("s1")  # the first call is computed, so the full check passes
    if p.get("check") not in ("PASS", "FAIL"):
        fail("prepare: %r" % p)
    b = batch("s1", 6, "777")
    if b["errors"] <= 0:
        fail("a cached output must count errors: %r" % b)
    if row("s1")[5] != "FAIL":
        fail("a shape with batch errors must be FAIL")
    # a new prepare discards what was measured before, errors included, and the next batch fails again
    prepare("s1", "5")
    if batch("s1", 4, "9")["errors"] <= 0:
        fail("errors after a new prepare")
    finish()
elif scenario == "refusals":
    r = req("frobnicate", expect_ok=False)
    if "unknown op" not in r["error"]:
        fail("unknown op: %r" % r)
    req("hello", expect_ok=False, protocol=2)
    req("prepare", expect_ok=False, shape="nope", seed="1")
    req("prepare", expect_ok=False, shape="s1", seed=1)  # seeds are strings
    req("prepare", expect_ok=False, shape="s1", seed="-1")
    req("prepare", expect_ok=False, shape="s1", seed="18446744073709551616")
    req("batch", expect_ok=False, shape="s1", calls=4, seed="1")  # not prepared yet
    req("row", expect_ok=False, shape="s1")
    prepare("s1")
    req("batch", expect_ok=False, shape="s1", calls=0, seed="1")
    req("batch", expect_ok=False, shape="s1", calls=True, seed="1")
    r = send_raw("this is not json")
    if r.get("ok") is not False or r.get("id") is not None:
        fail("a line that is not JSON: %r" % r)
    next_id[0] += 1
    r = send_raw('{"id": %d}' % next_id[0])
    if r.get("ok") is not False or r.get("id") != next_id[0]:
        fail("a request without op: %r" % r)
    batch("s1", 3, "2")  # still usable
    finish()
elif scenario == "eof":
    prepare("s2")
    batch("s2", 3, "3")
    finish(quit=False)  # EOF without quit: exit 0
elif scenario == "tamper":
    # the worker refuses to go on: no reply, exit 3 (kopt: the worker died, every shape failed)
    proc.stdin.write(json.dumps({"id": 2, "op": "prepare", "shape": "s1", "seed": "1"}) + "\n")
    proc.stdin.flush()
    if proc.stdout.readline() != "":
        fail("a tampered worker must not reply")
    rc = proc.wait(timeout=120)
    if rc != 3:
        fail("a kernel that patches a timer must stop the worker with exit 3, got %d" % rc)
print("%s: ok" % scenario)
EOF

for s in honest cached chatty refusals eof tamper; do
  "$py" "$work/driver.py" "$s" "$py" "$work/config.py" || { echo "--- worker log:"; cat "$work/$s.log"; exit 1; }
done
grep -q "chatty kernel: imported" "$work/chatty.log" || { echo "FAIL: the kernel's stdout must reach the log (stderr)" >&2; exit 1; }
grep -q "raw bytes on fd 1" "$work/chatty.log" || { echo "FAIL: writes to fd 1 must reach the log" >&2; exit 1; }
grep -q "timer tampering detected" "$work/tamper.log" || { echo "FAIL: no tampering message" >&2; exit 1; }
# Each row logs where its kept batches' time went: on the CPU three batches of 5 calls per direction,
# its slots measured, and no call that the device reached before its launch (there is no queue).
for s in s1 s2; do
  # and each prepare says how many timing streams the shape takes in turn (one on the CPU), and
  # per direction the two sizing batches and the cost of a call they gave
  sizing="sizing (forward|backward): 8 calls [0-9.]+ ms, [0-9]+ calls [0-9.]+ ms: [0-9.e+-]+ ms a call"
  grep -Eq "time: prepare $s: check [0-9.e-]+ ms, .*timing streams 1 \(a batch's peak [0-9]+ MB\); $sizing; $sizing$" "$work/honest.log" ||
    { echo "FAIL: no timing streams in the prepare line of $s:"; grep "time: prepare" "$work/honest.log"; exit 1; } >&2
  grep -Eq "time: batches $s: 6 batches .*device per call slot \(median of [0-9]+\) [0-9.e-]+ ms, calls the device reached before their launch 0, allocator retries 0, cudaMalloc 0, cudaFree 0$" \
    "$work/honest.log" || { echo "FAIL: no batch split for $s:"; grep "time: batches" "$work/honest.log"; exit 1; } >&2
done
echo "quick_harness_worker: ok"
