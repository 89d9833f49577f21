#!/usr/bin/env bash
# The two CPU bench harnesses (kernels/cpu, kernels/cpu_grouped) speak the bench worker protocol
# (harness/WORKER-PROTOCOL.md) with --serve, driven over pipes by a small python3 driver:
#  - hello's csv_header is byte-identical to the CSV mode's header, its shapes are --list-shapes;
#  - an honest build: prepare PASS with call_ms, batches with one positive time per call and
#    errors 0, a PASS row whose times are the median of every batch call;
#  - hostile builds (kernels/cpu_exploits, the grouped shortcut): errors > 0 and a FAIL row; a
#    kernel that starts a thread or forks (raw system call) kills its worker with SIGSYS;
#  - a kernel printing to stdout (from a static initialiser and from every call) corrupts no reply;
#  - bad requests answer ok:false naming the field, and the worker goes on;
#  - quit and EOF exit 0.
set -euo pipefail
src=${KOPT_SOURCE_DIR:?KOPT_SOURCE_DIR must point at the kopt source tree}
command -v python3 >/dev/null || { echo "SKIP: python3 is required"; exit 77; }
command -v c++ >/dev/null || { echo "SKIP: a C++ compiler is required"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
exploits="$src/kernels/cpu_exploits"

# --- builds: the kernel folders as a user's repository holds them --------------------------------
cpu_tree() {  # cpu_tree DIR: a fresh copy of kernels/cpu
  rm -rf "$1" && cp -r "$src/kernels/cpu" "$1" && rm -rf "$1/build"
}
grouped_tree() {  # grouped_tree DIR: cpu_grouped/ with the two cpu/ files it needs beside it
  rm -rf "$1" && mkdir -p "$1/cpu" && cp "$src/kernels/cpu/bench_util.h" "$src/kernels/cpu/build.sh" "$1/cpu/"
  cp -r "$src/kernels/cpu_grouped" "$1/cpu_grouped" && rm -rf "$1/cpu_grouped/build"
}
cpu_tree "$work/honest"
(cd "$work/honest" && ./build.sh) || fail "kernels/cpu build.sh failed"
grouped_tree "$work/grouped"
sh "$work/grouped/cpu_grouped/build.sh" || fail "kernels/cpu_grouped build.sh failed"
gemm="$work/honest/build/cpu_gemm_bench"
grouped="$work/grouped/cpu_grouped/build/cpu_grouped_gemm_bench"

cat >"$work/driver.py" <<'EOF'
"""Drives one bench worker over pipes: one JSON line out, one reply line back, checked strictly."""
import json, math, os, select, statistics, subprocess, sys

class Worker:
    def __init__(self, bench, log):
        self.log = open(log, "wb")
        self.p = subprocess.Popen([bench, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.next_id = 1
        self.buf = b""

    def line(self, limit_s=120):
        # A deadline only so that a hung worker fails the test instead of hanging it.
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.p.stdout], [], [], limit_s)
            assert ready, "no reply within %d s" % limit_s
            chunk = os.read(self.p.stdout.fileno(), 65536)
            assert chunk, "the worker closed stdout (exit %s)" % self.p.poll()
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def raw(self, text):
        self.p.stdin.write(text.encode() + b"\n")
        self.p.stdin.flush()
        return json.loads(self.line())

    def call(self, op, **fields):
        rid = self.next_id
        self.next_id += 1
        reply = self.raw(json.dumps(dict(id=rid, op=op, **fields)))
        assert reply["id"] == rid, (rid, reply)
        return reply

    def ok(self, op, **fields):
        reply = self.call(op, **fields)
        assert reply["ok"] is True, (op, fields, reply)
        return reply

    def close(self, how="eof"):
        if how == "quit":
            assert self.ok("quit") == {"id": self.next_id - 1, "ok": True}
        self.p.stdin.close()
        rc = self.p.wait(timeout=60)
        rest = self.p.stdout.read()
        assert rc == 0, "worker exited %d after %s" % (rc, how)
        assert self.buf == b"" and rest == b"", "bytes after the last reply: %r" % (self.buf + rest)

def fields(row):
    cells = row.split(",")
    assert len(cells) == 15, row
    return cells

def batch(w, shape, calls, seed, want_dirs):
    b = w.ok("batch", shape=shape, calls=calls, seed=str(seed))
    assert b["shape"] == shape and isinstance(b["errors"], int) and b["errors"] >= 0, b
    assert b["wall_ms"] > 0 and b["idle_probe_us"] is None, b
    assert [s["direction"] for s in b["series"]] == want_dirs, b
    for s in b["series"]:
        assert set(s) == {"direction", "times_ms", "flops", "bytes"}, s
        assert len(s["times_ms"]) == calls, (calls, s)
        assert all(isinstance(t, float) and t > 0 and math.isfinite(t) for t in s["times_ms"]), s
        assert s["flops"] > 0 and s["bytes"] > 0, s
    return b

def honest(bench, log, header, labels, dirs):
    w = Worker(bench, log)
    h = w.ok("hello", protocol=1)
    assert h["protocol"] == 1 and h["csv_header"] == header, (h["csv_header"], header)
    assert h["shapes"] == labels.split(","), (h["shapes"], labels)
    assert h["harness"] and h["device"], h
    for i, shape in enumerate(h["shapes"]):
        p = w.ok("prepare", shape=shape, seed=str(2**63 - 1 - i))
        assert p["shape"] == shape and p["check"] == "PASS" and p["problem"] == "", p
        assert sorted(p["call_ms"]) == sorted(dirs) and all(v > 0 for v in p["call_ms"].values()), p
        times = {d: [] for d in dirs}
        for seed in (11 + i, 12 + i):
            b = batch(w, shape, 4, seed, dirs)
            assert b["errors"] == 0, b
            for s in b["series"]:
                times[s["direction"]] += s["times_ms"]
        row = fields(w.ok("row", shape=shape)["row"])
        assert row[0] == shape and row[5] == "PASS", row
        # The row covers every batch call since prepare: its time is their median, %.6g.
        assert float(row[10]) == float("%.6g" % statistics.median(times["forward"])), (row, times)
        if "backward" in dirs:
            assert float(row[11]) == float("%.6g" % statistics.median(times["backward"])), (row, times)
        assert float(row[6]) > 0 and float(row[12]) > 80, row
    # A new prepare discards what was measured before: the row has no times until the next batch.
    shape = h["shapes"][0]
    w.ok("prepare", shape=shape, seed="5")
    row = fields(w.ok("row", shape=shape)["row"])
    assert row[5] == "PASS" and row[10] == "nan" and row[6] == "nan", row
    w.close("quit")
    print("honest ok:", bench)

def hostile(bench, log, shape, dirs):
    w = Worker(bench, log)
    w.ok("hello", protocol=1)
    p = w.ok("prepare", shape=shape, seed="77")
    assert p["check"] in ("PASS", "FAIL"), p
    b = batch(w, shape, 5, 78, dirs)
    assert b["errors"] > 0, b
    row = fields(w.ok("row", shape=shape)["row"])
    assert row[5] == "FAIL", row
    w.close("eof")
    print("hostile ok: prepare %s, %d failed calls, row FAIL" % (p["check"], b["errors"]))

def confined(bench, log, shape):
    """A kernel whose first call makes a system call the harness forbids (a thread, a fork): the
    worker is killed by its seccomp filter (SIGSYS) in prepare, before any reply."""
    w = Worker(bench, log)
    w.ok("hello", protocol=1)
    w.p.stdin.write(json.dumps(dict(id=2, op="prepare", shape=shape, seed="77")).encode() + b"\n")
    w.p.stdin.flush()
    rc = w.p.wait(timeout=120)
    rest = w.p.stdout.read()
    assert rc == -31, "the worker should die of SIGSYS (-31), got %s after %r" % (rc, rest)
    assert rest == b"", "a reply came before the kill: %r" % rest
    print("confined ok: killed by SIGSYS in prepare")

def printing(bench, log, shape, dirs):
    w = Worker(bench, log)
    # The first line on the reply channel must be hello's own reply, not the static initialiser's.
    h = w.ok("hello", protocol=1)
    assert "forged" not in json.dumps(h), h
    p = w.ok("prepare", shape=shape, seed="3")
    assert p["check"] == "PASS", p
    assert batch(w, shape, 3, 4, dirs)["errors"] == 0
    assert fields(w.ok("row", shape=shape)["row"])[5] == "PASS"
    w.close("eof")
    text = open(log).read()
    assert "forged by a static initialiser" in text and "forged by a call" in text, "the kernel's prints are not in the log"
    print("stdout printing ok")

def bad(bench, log, shape):
    w = Worker(bench, log)
    cases = [  # (request line, the id the reply must carry, the error must start with)
        ('not json', None, "request:"),
        ('[1,2]', None, "request:"),
        ('{"id":1,"op":"hello","protocol":1,}', None, "request:"),
        ('{"id":1,"op":"hello","protocol":1} trailing', None, "request:"),
        ('{"op":"hello","protocol":1}', None, "id:"),
        ('{"id":1,"id":2,"op":"hello","protocol":1}', None, "id:"),
        ('{"id":1,"op":"frobnicate"}', 1, "op:"),
        ('{"id":2}', 2, "op:"),
        ('{"id":3,"op":"hello","protocol":2}', 3, "protocol:"),
        ('{"id":4,"op":"hello","protocol":1,"extra":true}', 4, "extra:"),
        ('{"id":5,"op":"prepare","shape":"no_such_shape","seed":"1"}', 5, "shape:"),
        ('{"id":6,"op":"prepare","shape":{"a":1},"seed":"1"}', None, "shape:"),
        ('{"id":7,"op":"prepare","shape":"%s","seed":123}' % shape, 7, "seed:"),
        ('{"id":8,"op":"prepare","shape":"%s","seed":"-4"}' % shape, 8, "seed:"),
        ('{"id":9,"op":"prepare","shape":"%s","seed":"99999999999999999999"}' % shape, 9, "seed:"),
        ('{"id":10,"op":"prepare","shape":"%s"}' % shape, 10, "seed:"),
        ('{"id":11,"op":"batch","shape":"%s","calls":4,"seed":"1"}' % shape, 11, "shape:"),  # not prepared
        ('{"id":12,"op":"row","shape":"%s"}' % shape, 12, "shape:"),  # not prepared
        ('{"id":13,"op":"batch","shape":"%s","calls":0,"seed":"1"}' % shape, 13, "calls:"),
        ('{"id":14,"op":"batch","shape":"%s","calls":2.5,"seed":"1"}' % shape, 14, "calls:"),
        ('{"id":15,"op":"batch","shape":"%s","calls":"4","seed":"1"}' % shape, 15, "calls:"),
        ('{"id":16,"op":"hello","protocol":1,"s":"\\ud800"}', None, "s:"),
        ('{"id":17,"op":"prepare","shape":"%s","seed":"1","sizing":"no"}' % shape, 17, "sizing:"),
    ]
    for text, want_id, prefix in cases:
        r = w.raw(text)
        assert r["ok"] is False and r["error"].startswith(prefix), (text, r)
        assert r["id"] == want_id, (text, r)
        assert set(r) == {"id", "ok", "error"} and "\n" not in r["error"], r
    # A string id is echoed as sent; then the worker still serves real requests.
    assert w.raw('{"id":"x-7","op":"frobnicate"}')["id"] == "x-7"
    w.ok("hello", protocol=1)
    assert w.ok("prepare", shape=shape, seed="1")["check"] == "PASS"
    assert w.ok("prepare", shape=shape, seed="1", sizing=False)["check"] == "PASS"  # both arms, once the size is remembered
    w.close("eof")
    print("bad requests ok:", len(cases) + 1, "refused, worker still serving")

def eof(bench, log):
    w = Worker(bench, log)
    w.close("eof")  # nothing sent at all: EOF alone ends the worker with 0
    print("eof ok")

if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
EOF
both_dirs='["forward", "backward"]'

# --- CSV header and shapes as the CSV mode writes them ------------------------------------------
"$gemm" --shapes sq96 --min-samples 2 --max-samples 2 --summary-csv "$work/gemm.csv" 2>/dev/null
"$grouped" --shapes moe_8x --min-samples 2 --max-samples 2 --summary-csv "$work/grouped.csv" 2>/dev/null
gemm_header=$(head -n1 "$work/gemm.csv")
grouped_header=$(head -n1 "$work/grouped.csv")
gemm_labels=$("$gemm" --list-shapes | awk '{print $1}' | paste -sd, -)
grouped_labels=$("$grouped" --list-shapes | awk '{print $1}' | paste -sd, -)

# --- honest builds -----------------------------------------------------------------------------
run_py() {  # run_py FUNC ARGS...: the driver's function with python-literal direction lists
  local fn=$1; shift
  python3 -c 'import sys, ast; sys.path.insert(0, sys.argv[1]); import driver
fn, args = sys.argv[2], [ast.literal_eval(a) if a.startswith("[") else a for a in sys.argv[3:]]
getattr(driver, fn)(*args)' "$work" "$fn" "$@"
}
run_py honest "$gemm" "$work/gemm.log" "$gemm_header" "$gemm_labels" "$both_dirs" \
  || { cat "$work/gemm.log" >&2; fail "honest kernels/cpu worker"; }
run_py honest "$grouped" "$work/grouped.log" "$grouped_header" "$grouped_labels" '["forward"]' \
  || { cat "$work/grouped.log" >&2; fail "honest kernels/cpu_grouped worker"; }

# --- hostile builds: every one costs failed calls and a FAIL row -------------------------------
for variant in constant_output identity_cache unwritten_output deferred_thread session_daemon; do
  [ "$variant" = session_daemon ] && [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ] && continue  # raw x86-64 syscalls
  cpu_tree "$work/$variant"
  sh "$exploits/make_variant.sh" "$src/kernels/cpu/gemm.cpp" "$exploits/$variant.cpp" >"$work/$variant/gemm.cpp"
  # Linked by hand: build.sh's symbol audit would refuse deferred_thread before any worker runs.
  c++ -std=c++17 -O2 -o "$work/$variant/bench" "$work/$variant/gemm.cpp" "$work/$variant/bench.cpp" -pthread
  case $variant in
    deferred_thread | session_daemon) check=confined; args=(sq96) ;;
    *) check=hostile; args=(sq96 "$both_dirs") ;;
  esac
  run_py "$check" "$work/$variant/bench" "$work/$variant.log" "${args[@]}" \
    || { cat "$work/$variant.log" >&2; fail "hostile kernel $variant was not caught in worker mode"; }
done
grouped_tree "$work/shortcut"
cp "$src/kernels/cpu_grouped/exploits/equal_groups_shortcut.cpp" "$work/shortcut/cpu_grouped/grouped_gemm.cpp"
sh "$work/shortcut/cpu_grouped/build.sh" || fail "the grouped shortcut did not build"
run_py hostile "$work/shortcut/cpu_grouped/build/cpu_grouped_gemm_bench" "$work/shortcut.log" moe_8x '["forward"]' \
  || { cat "$work/shortcut.log" >&2; fail "the equal-groups shortcut was not caught in worker mode"; }

# --- a kernel printing to stdout, from a static initialiser and from every call -----------------
cpu_tree "$work/printing"
python3 - "$work/printing/gemm.cpp" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
anchor = "void forward(const float* A, const float* B, float* C, int M, int N, int K) {\n"
assert anchor in s, "gemm.cpp forward() signature changed; update this test"
forged = r'std::printf("{\"id\":%d,\"ok\":true,\"forged by a %s\":1}\n", 1, '
s = s.replace(anchor, anchor + "  " + forged + '"call"); std::fflush(stdout);\n')
s = "#include <cstdio>\n" + s + "\nnamespace {\nconst int g_forged = (" + forged + '"static initialiser"), std::fflush(stdout), 0);\n}\n'
open(p, "w").write(s)
EOF
# Linked by hand: build.sh's audit refuses the static initialiser (no .init_array in a kernel), but
# the reply channel must hold against a build that is not build.sh's.
c++ -std=c++17 -O2 -o "$work/printing/bench" "$work/printing/gemm.cpp" "$work/printing/bench.cpp" ||
  fail "the printing kernel did not build"
run_py printing "$work/printing/bench" "$work/printing.log" sq96 "$both_dirs" \
  || { cat "$work/printing.log" >&2; fail "a kernel printing to stdout corrupted the replies"; }

# --- bad requests, EOF --------------------------------------------------------------------------
run_py bad "$gemm" "$work/bad.log" sq96 || { cat "$work/bad.log" >&2; fail "bad requests (kernels/cpu)"; }
run_py bad "$grouped" "$work/bad-grouped.log" moe_8x || { cat "$work/bad-grouped.log" >&2; fail "bad requests (kernels/cpu_grouped)"; }
run_py eof "$gemm" "$work/eof.log" || fail "EOF must end the kernels/cpu worker with 0"
run_py eof "$grouped" "$work/eof-grouped.log" || fail "EOF must end the kernels/cpu_grouped worker with 0"

# --- --serve refuses the CSV run's options -----------------------------------------------------
for b in "$gemm" "$grouped"; do
  set +e
  "$b" --serve --seed 3 </dev/null >"$work/mixed.out" 2>"$work/mixed.err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] && grep -q -- "--serve takes shapes and seeds from its requests" "$work/mixed.err" \
    || fail "$b --serve --seed should exit 2 naming the conflict (rc $rc)"
done

echo "cpu_worker_protocol: ok"
