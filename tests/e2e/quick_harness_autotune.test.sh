#!/usr/bin/env bash
# The quick harness's autotune pin (harness/CONTRACT.md, "Autotuned kernels") end to end on CPU
# tensors, with a stand-in `triton` package whose Autotuner picks a config at random, as noisy
# timings would, and honours TRITON_CACHE_AUTOTUNING / TRITON_CACHE_DIR as Triton's does:
# - two harness processes of one tree started together, and a third one after them, report the
#   same config for every shape (one tuned it under the lock, the others read the cache);
# - a worker's prepare reply carries it as "autotune";
# - a tree with one other byte gets a cache folder of its own; KOPT_AUTOTUNE_CACHE_DIR=off and a
#   module without an autotuner print no autotune line.
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
fail() { echo "FAIL: $*" >&2; exit 1; }
export PYTHONDONTWRITEBYTECODE=1

mkdir -p "$work/fake/triton/runtime" "$work/tree" "$work/other" "$work/plain"
: >"$work/fake/triton/__init__.py"
echo "from .autotuner import Autotuner" >"$work/fake/triton/runtime/__init__.py"
cat >"$work/fake/triton/runtime/autotuner.py" <<'EOF'
"""A stand-in for Triton's Autotuner: a random pick per key, tuned for 0.5 s; with
TRITON_CACHE_AUTOTUNING=1 the pick is read from, or written to, TRITON_CACHE_DIR."""
import json, os, random, time

class Autotuner:
    def __init__(self, fn, configs, key):
        self.fn = self.base_fn = fn
        self.configs, self.keys, self.cache, self.best_config = configs, key, {}, None
        self.cache_results = os.environ.get("TRITON_CACHE_AUTOTUNING") == "1"

    def run(self, *args, **kwargs):
        key = tuple(kwargs[k] for k in self.keys)
        if key not in self.cache:
            path = os.path.join(os.environ.get("TRITON_CACHE_DIR", "/nonexistent"),
                                "%s-%s.autotune.json" % (self.fn.__name__, "-".join(map(str, key))))
            if self.cache_results and os.path.exists(path):
                self.cache[key] = json.load(open(path))["config"]
            else:
                time.sleep(0.5)
                self.cache[key] = random.Random(os.urandom(8)).choice(self.configs)
                if self.cache_results:
                    with open(path + ".tmp", "w") as f:
                        json.dump({"config": self.cache[key]}, f)
                    os.replace(path + ".tmp", path)
        self.best_config = self.cache[key]
        return self.fn(*args)
EOF
cat >"$work/tree/rms.py" <<'EOF'
import torch
from triton.runtime.autotuner import Autotuner
def make_inputs(shape, dtype, device, generator):
    x = torch.randn((shape["B"] * shape["M"], shape["N"]), generator=generator, device=device).to(dtype)
    w = (1.0 + 0.1 * torch.randn((shape["N"],), generator=generator, device=device)).to(dtype)
    return x, w
def reference_forward(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w.float()
def _rms_rows(x, w):
    return reference_forward(x, w).to(x.dtype)
_kernel = Autotuner(_rms_rows, ["BLOCK: %d, num_warps: 4" % (16 << i) for i in range(8)], key=["N"])
def forward(x, w):
    return _kernel.run(x, w, N=x.shape[-1])
EOF
sed 's/+ 1e-6/+ 1e-6 + 0.0/' "$work/tree/rms.py" >"$work/other/rms.py"
cat >"$work/plain/rms.py" <<'EOF'
import torch
def make_inputs(shape, dtype, device, generator):
    x = torch.randn((shape["B"] * shape["M"], shape["N"]), generator=generator, device=device).to(dtype)
    w = (1.0 + 0.1 * torch.randn((shape["N"],), generator=generator, device=device)).to(dtype)
    return x, w
def reference_forward(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w.float()
def forward(x, w):
    return reference_forward(x, w).to(x.dtype)
EOF
cat >"$work/config.py" <<EOF
import os, sys
sys.path.insert(0, "$src/harness/python")
import quick_test_bench as h
cfg = dict(BACKEND="TRITON", KIND="memory", KERNEL_MODULE=os.path.join(os.environ["TREE"], "rms.py"),
           FORWARD="forward", BACKWARD="", INPUT_DTYPE="fp32", CHECK="fp32",
           SHAPES=[("m1", 1, 64, 96), ("m2", 2, 16, 40)])
sys.exit(h.main(config=cfg))
EOF
export PYTHONPATH=$work/fake KOPT_AUTOTUNE_CACHE_DIR=$work/cache

run() {  # TREE NAME: a CSV run in the background; its stderr in $work/NAME.err
  TREE=$work/$1 "$py" "$work/config.py" --device cpu --summary-csv "$work/$2.csv" --samples "$work/$2.jsonl" \
    --time-cap-s 0.05 --min-samples 3 2>"$work/$2.err" &
}
config_of() {  # NAME LABEL -> the config the run reported for the shape
  sed -n "s/^quick_test_bench: autotune: $2: _rms_rows = \(.*\); .*/\1/p" "$work/$1.err"
}
configs() { echo "m1=$(config_of "$1" m1); m2=$(config_of "$1" m2)"; }
run tree a
run tree b
wait
run tree c
wait
for n in a b c; do
  [ "$(tail -n +2 "$work/$n.csv" | cut -d, -f1,5 | paste -sd' ' -)" = "m1,PASS m2,PASS" ] ||
    { cat "$work/$n.err"; fail "run $n should PASS every shape"; }
done
[ "$(grep -c '^quick_test_bench: autotune: m[12]: _rms_rows = BLOCK: ' "$work/a.err")" -eq 2 ] ||
  { cat "$work/a.err"; fail "run a should print one autotune line per shape"; }
[ "$(configs a)" = "$(configs b)" ] && [ "$(configs a)" = "$(configs c)" ] ||
  { cat "$work/a.err" "$work/b.err" "$work/c.err"; fail "one tree, different configs: a '$(configs a)', b '$(configs b)', c '$(configs c)'"; }
grep -q "^quick_test_bench: autotune: cache $work/cache/" "$work/a.err" || { cat "$work/a.err"; fail "the cache folder is not under KOPT_AUTOTUNE_CACHE_DIR"; }
[ "$(ls "$work/cache" | wc -l)" -eq 1 ] || fail "one tree should make one cache folder: $(ls "$work/cache")"

# a worker's prepare reply carries the shape's config
reply=$(printf '%s\n' '{"id":1,"op":"hello","protocol":1}' '{"id":2,"op":"prepare","shape":"m2","seed":"5","sizing":false}' \
  '{"id":3,"op":"quit"}' | TREE=$work/tree "$py" "$work/config.py" --device cpu --serve 2>"$work/w.err" | sed -n 2p)
want=$(config_of a m2)
"$py" -c 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(0 if r.get("autotune") == {"_rms_rows": sys.argv[2]} else 1)' \
  "$reply" "$want" || { cat "$work/w.err"; fail "the prepare reply should carry autotune {\"_rms_rows\": \"$want\"}: $reply"; }

# another tree, its own folder; off, and a module without an autotuner: no autotune line
run other d
wait
[ "$(ls "$work/cache" | wc -l)" -eq 2 ] || fail "a tree with one other byte should get a folder of its own: $(ls "$work/cache")"
KOPT_AUTOTUNE_CACHE_DIR=off run tree e
run plain f
wait
for n in e f; do
  [ "$(tail -n +2 "$work/$n.csv" | cut -d, -f1,5 | paste -sd' ' -)" = "m1,PASS m2,PASS" ] || { cat "$work/$n.err"; fail "run $n should PASS"; }
  ! grep -q "autotune:" "$work/$n.err" || { cat "$work/$n.err"; fail "run $n should not pin anything"; }
done
[ "$(ls "$work/cache" | wc -l)" -eq 2 ] || fail "a module without an autotuner should leave no cache folder: $(ls "$work/cache")"
echo "quick_harness_autotune: ok"
