import argparse, json, math, os, random, sys
SHAPES = [("s1", 64, 64, 64), ("s2", 128, 128, 128), ("s3", 96, 80, 72), ("s4", 16, 256, 128)]
HEADER = "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr"
def config():
    cfg = {}
    with open(os.path.join(os.getcwd(), "build", "config.ini")) as f:
        for line in f:
            line = line.strip()
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                cfg[k.strip()] = v.strip()
    return cfg
ap = argparse.ArgumentParser()
ap.add_argument("--summary-csv")
ap.add_argument("--samples")
ap.add_argument("--shapes")
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--serve", action="store_true")
a = ap.parse_args()
cfg = config()
if cfg.get("crash") == "1":
    sys.exit(3)


def serve():
    """Bench worker protocol 1 (harness/WORKER-PROTOCOL.md) with synthetic times: no clock is read.

    aa_bias=<x> makes a worker outside kopt's best worktree (the A/A's candidate arm runs in the
    campaign's repository) read x slower in the first aa_bias_sessions workers started in its
    build directory (default: all): an arm effect the BASELINE A/A must find, and, confined to
    the first sessions, a chance alarm that fresh sessions do not confirm. session_sd=<x> is a
    per-process effect: the same worker reads x slower, as fast, or x faster, in turns by its
    start number, so the A/A's sessions disagree by exactly x."""
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(reply_fd, "w")
    counter = os.path.join("build", "serve_count")
    n = int(open(counter).read()) if os.path.exists(counter) else 0
    with open(counter, "w") as f:
        f.write(str(n + 1))
    slow = 1.0
    if "/worktrees/" not in os.getcwd() and n < int(cfg.get("aa_bias_sessions", "1000")):
        slow += float(cfg.get("aa_bias", "0"))
    if "/worktrees/" not in os.getcwd():
        slow *= math.exp(float(cfg.get("session_sd", "0")) * (n % 3 - 1))
    speed = float(cfg.get("speed", "100"))
    noise = float(cfg.get("noise", "0.002"))
    known = {s[0]: s for s in SHAPES}

    def send(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    def call_ms(label):
        _, M, N, K = known[label]
        return 2.0 * M * N * K / (speed * float(cfg.get("speed_" + label, "1")) * 1e12) * 1e3 * slow

    for line in sys.stdin:
        req = json.loads(line)
        rid, op, label = req.get("id"), req.get("op"), req.get("shape")
        if op == "hello":
            send({"id": rid, "ok": True, "protocol": 1, "harness": "fake_bench", "device": "fake", "csv_header": HEADER,
                  "shapes": [s[0] for s in SHAPES]})
        elif op in ("prepare", "batch", "row") and label not in known:
            send({"id": rid, "ok": False, "error": "unknown shape %s" % label})
        elif op == "prepare":
            bad = cfg.get("correct", "1") == "0" or cfg.get("fail_" + label) == "1"
            # The synthetic time is far below a real call's; 1 ms per call keeps batches small.
            send({"id": rid, "ok": True, "shape": label, "check": "FAIL" if bad else "PASS",
                  "problem": "wrong output" if bad else "", "call_ms": {"forward": 1.0}})
        elif op == "batch":
            _, M, N, K = known[label]
            rng = random.Random("%s|%s|%s" % (req["seed"], label, os.getcwd()))
            times = [call_ms(label) * math.exp(rng.gauss(0, noise)) for _ in range(req["calls"])]
            send({"id": rid, "ok": True, "shape": label, "errors": 0, "wall_ms": sum(times),
                  "series": [{"direction": "forward", "times_ms": times, "flops": 2.0 * M * N * K, "bytes": None}]})
        elif op == "row":
            _, M, N, K = known[label]
            ms = call_ms(label)
            tf = 2.0 * M * N * K / (ms * 1e-3) / 1e12
            send({"id": rid, "ok": True, "shape": label,
                  "row": "%s,1,%d,%d,%d,PASS,%.6g,0,nan,nan,%.6g,nan,inf,inf,inf" % (label, M, N, K, tf, ms)})
        elif op == "quit":
            send({"id": rid, "ok": True})
            break
        else:
            send({"id": rid, "ok": False, "error": "unknown op %r" % op})
    sys.exit(0)


if a.serve:
    serve()
shapes = SHAPES
if a.shapes:
    known = {s[0]: s for s in SHAPES}
    for w in a.shapes.split(","):
        if w not in known:
            print("unknown shape " + w, file=sys.stderr)
            sys.exit(2)
    shapes = [known[w] for w in a.shapes.split(",")]
speed = float(cfg.get("speed", "100"))
noise = float(cfg.get("noise", "0.002"))
rng = random.Random("%d|%s" % (a.seed, os.getcwd()))
header = HEADER + (",extra" if cfg.get("extra_column") == "1" else "")
lines = [header]
series = []
for (label, M, N, K) in shapes:
    tf = speed * float(cfg.get("speed_" + label, "1"))
    flops = 2.0 * M * N * K
    base_ms = flops / (tf * 1e12) * 1e3
    run = math.exp(rng.gauss(0, noise))
    times = [base_ms * run * math.exp(rng.gauss(0, noise / 4)) for _ in range(8)]
    tflops = [flops / (t * 1e-3) / 1e12 for t in times]
    mean = sum(tflops) / len(tflops)
    sd = math.sqrt(sum((x - mean) ** 2 for x in tflops) / len(tflops))
    st = sorted(times)
    med = 0.5 * (st[3] + st[4])
    bad = cfg.get("correct", "1") == "0" or cfg.get("fail_" + label) == "1"
    row = "%s,1,%d,%d,%d,%s,%.6g,%.6g,nan,nan,%.6g,nan,inf,inf,inf" % (label, M, N, K, "FAIL" if bad else "PASS", flops / (med * 1e-3) / 1e12, sd, med)
    if cfg.get("extra_column") == "1":
        row += ",0"
    lines.append(row)
    series.append({"label": label, "direction": "forward", "unit": "ms", "times": times, "flops": flops, "bytes": None, "stop": "max_samples"})
if cfg.get("nocsv") != "1":
    with open(a.summary_csv, "w") as f:
        f.write("\n".join(lines) + "\n")
if a.samples:
    with open(a.samples, "w") as f:
        f.write(json.dumps({"kopt_samples": 1, "harness": "fake_bench", "device": "fake", "seed": a.seed}) + "\n")
        for s in series:
            f.write(json.dumps(s) + "\n")
print("bench done: %d shapes" % len(shapes))
