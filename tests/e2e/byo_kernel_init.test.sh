#!/usr/bin/env bash
# Bring your own kernel (docs/byo-kernel.md): a plain git repository with a kernel kopt does not
# ship (a torch scale-and-shift, memory-bound, on torch's CPU device) goes through `kopt init` to a
# recorded baseline over MCP. Also: init's refusals name the flag and write nothing; on a terminal
# it asks for the kernel and the shapes; it refuses to overwrite its files; it commits only its
# own three files; and the harness keeps each tree's imports its own (a package the tree holds, pre-imported from another checkout the way an
# editable install does, fails the run; a plain PYTHONPATH to that checkout loses to the tree).
# Needs git and a python3 with torch (Debian: python3-torch); skipped (77) without them.
# ctest: RESOURCE_LOCK timed_cpu_campaign (its verdicts read CPU timings; see tests/CMakeLists.txt)
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
require_commands git
# The manifest kopt init writes runs `python3`: put one that has torch first on PATH.
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$(command -v "$cand"); break; fi
done
[[ -n "$py" ]] || { echo "skip: no python3 with torch"; exit 77; }
mkdir -p "$E2E_TMP/bin" && ln -s "$py" "$E2E_TMP/bin/python3"
export PATH="$E2E_TMP/bin:$PATH"
export_git_identity
export PYTHONDONTWRITEBYTECODE=1
fail() { echo "FAIL: $*"; exit 1; }

repo="$E2E_TMP/scale-shift"
mkdir -p "$repo/mypkg"
cat >"$repo/mypkg/__init__.py" <<'PY'
import torch

ORIGIN = "tree"


def scale_shift(x, w, b):
    return torch.addcmul(b, x, w)
PY
cat >"$repo/scale_shift.py" <<'PY'
"""y = x * w + b over the last dimension: a memory-bound op in plain torch."""
import torch

import mypkg


def make_inputs(shape, dtype, device, generator):
    rows, hidden = shape["B"] * shape["M"], shape["N"]
    x = torch.randn(rows, hidden, device=device, generator=generator).to(dtype)
    w = torch.randn(hidden, device=device, generator=generator).to(dtype)
    b = torch.randn(hidden, device=device, generator=generator).to(dtype)
    return x, w, b


def forward(x, w, b):
    return mypkg.scale_shift(x, w, b)


def reference_forward(x, w, b):
    return x.float() * w.float() + b.float()
PY
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" commit -qm "my kernel"
first=$(git -C "$repo" rev-parse HEAD)

# 1. Refusals name the flag and the fix, and write nothing.
expect_refusal() {  # WHAT FRAGMENT ARGS...
  local what=$1 fragment=$2
  shift 2
  if (cd "$repo" && "$KOPT_BIN" init "$@" </dev/null >"$E2E_TMP/refused.out" 2>&1); then fail "$what: kopt init accepted it"; fi
  grep -qF -- "$fragment" "$E2E_TMP/refused.out" || { cat "$E2E_TMP/refused.out"; fail "$what: no '$fragment' in the refusal"; }
  [[ ! -e "$repo/kopt" ]] || fail "$what: kopt/ was written by a refused init"
}
expect_refusal "no shapes" "--shape is required" --kernel scale_shift.py --device cpu
expect_refusal "no kernel" "--kernel FILE.py is required" --device cpu --shape a=1,8,8
expect_refusal "GEMM dims on a memory op" "a memory-bound shape is B,M,N" --kernel scale_shift.py --device cpu --shape a=1,8,8,8
expect_refusal "missing function" "has no top-level function 'fwd'" --kernel scale_shift.py --device cpu --forward fwd --shape a=1,8,8
expect_refusal "bad dims" "is not a positive integer" --kernel scale_shift.py --device cpu --shape a=1,0,8
expect_refusal "kernel outside" "not a .py file inside" --kernel ../elsewhere.py --device cpu --shape a=1,8,8
mkdir -p "$E2E_TMP/plain"
if "$KOPT_BIN" init --repo "$E2E_TMP/plain" --kernel k.py --shape a=1,8,8 >"$E2E_TMP/plain.out" 2>&1; then fail "a folder without git was accepted"; fi
grep -q "is not the root of a git repository" "$E2E_TMP/plain.out" || { cat "$E2E_TMP/plain.out"; fail "unclear refusal of a folder without git"; }

# On a terminal kopt init asks for what the flags left out, naming the Triton files it found
# (script(1) gives it a pseudo-terminal; answers: the kernel, one shape, a bad one, an empty line).
if command -v script >/dev/null; then
  asked="$E2E_TMP/asked"
  mkdir -p "$asked" && cp "$repo/scale_shift.py" "$asked/k.py" && cp -r "$repo/mypkg" "$asked/"
  printf 'import triton\n\n@triton.jit\ndef _k(x):\n    pass\n' >"$asked/tk.py"
  git -C "$asked" init -q -b main && git -C "$asked" add -A && git -C "$asked" commit -qm kernels
  (cd "$asked" && printf 'k.py\nr=1,64,64\nbad\n\n' |
    script -qec "'$KOPT_BIN' init --device cpu --no-validate --no-commit" /dev/null >"$E2E_TMP/asked.out" 2>&1) ||
    { cat "$E2E_TMP/asked.out"; fail "kopt init on a terminal"; }
  grep -q "Triton kernels here: tk.py" "$E2E_TMP/asked.out" || { cat "$E2E_TMP/asked.out"; fail "the prompt did not list tk.py"; }
  grep -q "'bad': expected LABEL=B,M,N" "$E2E_TMP/asked.out" || { cat "$E2E_TMP/asked.out"; fail "a bad shape was not explained"; }
  python3 -c "import json,sys; c=json.load(open(sys.argv[1])); assert [s['label'] for s in c['shapes']] == ['r'], c" \
    "$asked/kopt/bench.json" || fail "the answers did not reach kopt/bench.json"
fi

# 2. kopt init: writes, validates on one shape, commits exactly its three files.
(cd "$repo" && "$KOPT_BIN" init --kernel scale_shift.py --device cpu --shape s512=1,512,1024 --shape s1k=1,1024,2048 \
  </dev/null >"$E2E_TMP/init.out" 2>&1) || { cat "$E2E_TMP/init.out"; fail "kopt init"; }
grep -q "checked  s512 PASS, Forward GB/s" "$E2E_TMP/init.out" || { cat "$E2E_TMP/init.out"; fail "no validation run reported"; }
[[ "$(git -C "$repo" rev-parse HEAD~1)" == "$first" ]] || fail "kopt init did not make exactly one commit"
committed=$(git -C "$repo" show --name-only --format= HEAD | sort | tr '\n' ' ')
[[ "$committed" == "kopt/bench.json kopt/manifest.yaml kopt/quick_test_bench.py " ]] || fail "init committed: $committed"
[[ -z "$(git -C "$repo" status --porcelain)" ]] || { git -C "$repo" status --short; fail "init left the tree dirty"; }
python3 - "$repo/kopt/bench.json" <<'PY' || fail "kopt/bench.json is not what was asked for"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["kind"] == "memory" and c["kernel_module"] == "../scale_shift.py" and c["device"] == "cpu", c
assert [s["label"] for s in c["shapes"]] == ["s512", "s1k"] and c["backward"] == "", c
PY
if (cd "$repo" && "$KOPT_BIN" init --kernel scale_shift.py --device cpu --shape a=1,8,8 </dev/null >"$E2E_TMP/again.out" 2>&1); then
  fail "a second init overwrote kopt/ without --force"
fi
grep -q "kopt/bench.json exists: pass --force" "$E2E_TMP/again.out" || { cat "$E2E_TMP/again.out"; fail "unclear refusal to overwrite"; }

# 3. Imports stay the tree's own.
other="$E2E_TMP/other-checkout"
mkdir -p "$other/mypkg"
printf 'ORIGIN = "other"\n\ndef scale_shift(x, w, b):\n    raise RuntimeError("the other checkout ran")\n' >"$other/mypkg/__init__.py"
harness=(python3 kopt/quick_test_bench.py --config kopt/bench.json --shapes s512 --min-samples 2 --max-samples 3
  --summary-csv "$E2E_TMP/iso.csv" --samples "$E2E_TMP/iso.jsonl")
(cd "$repo" && PYTHONPATH="$other" "${harness[@]}" >"$E2E_TMP/pythonpath.out" 2>&1) ||
  { cat "$E2E_TMP/pythonpath.out"; fail "PYTHONPATH to another checkout beat the tree's own package"; }
grep -q "^s512,.*,PASS," "$E2E_TMP/iso.csv" || { cat "$E2E_TMP/iso.csv"; fail "the tree's package did not run"; }
echo "import mypkg  # an editable install's .pth imports at start-up" >"$other/sitecustomize.py"
set +e
(cd "$repo" && PYTHONPATH="$other" "${harness[@]}" >"$E2E_TMP/editable.out" 2>&1)
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$E2E_TMP/editable.out"; fail "a pre-imported package from another checkout: exit $rc, want 2"; }
grep -q "module 'mypkg' was imported from $other" "$E2E_TMP/editable.out" || { cat "$E2E_TMP/editable.out"; fail "the refusal does not name the module and its origin"; }

# 4. From the manifest kopt init wrote to a recorded baseline, through MCP.
cat >"$E2E_TMP/script.json" <<'JSON'
{"name": "bring your own kernel", "kernel_dir": "unused-with-repo", "steps": [
  {"tool": "define_target", "args": {"repo_path": "${repo}", "manifest_path": "kopt/manifest.yaml"},
   "capture": {"campaign_dir": "/campaign_dir"}},
  {"tool": "confirm_target", "args": {"campaign_dir": "${campaign_dir}", "confirm": true, "confirmed_by": "e2e"}},
  {"tool": "prepare_environment", "args": {"campaign_dir": "${campaign_dir}"}},
  {"tool": "read_tips", "args": {"campaign_dir": "${campaign_dir}"}},
  {"tool": "run_baseline", "args": {"campaign_dir": "${campaign_dir}"}, "expect": {"/round": 1, "/phase": "ANALYZE"}},
  {"say": "Control: the kernel alone changes (the same math without the package)", "tool": "begin_round",
   "args": {"campaign_dir": "${campaign_dir}", "statement": "I expect a small gain from calling addcmul directly",
            "change": "forward calls torch.addcmul itself", "expected_size_pct": 1, "rule11_bucket": "K1",
            "files": ["scale_shift.py"], "config_only": false}, "expect": {"/round": 2}},
  {"edit": {"file": "scale_shift.py", "replace": "    return mypkg.scale_shift(x, w, b)", "with": "    return torch.addcmul(b, x, w)"}},
  {"tool": "rebuild_kernel", "args": {"campaign_dir": "${campaign_dir}"}},
  {"tool": "validate_round", "args": {"campaign_dir": "${campaign_dir}", "full": true}},
  {"tool": "accept_or_revert", "args": {"campaign_dir": "${campaign_dir}", "attribution": "e2e", "next_direction": "e2e",
   "root_cause": "e2e", "lesson": "e2e", "cache_key": "none", "transfer_decision": "ACCEPT-as-real",
   "estimated_real_gain": "as measured", "audit_rejected": true}},
  {"say": "Attack: drop '+ b' from the kernel and from the reference it is checked against", "tool": "begin_round",
   "args": {"campaign_dir": "${campaign_dir}", "statement": "I expect a large gain from skipping the shift",
            "change": "forward and reference_forward without the shift", "expected_size_pct": 30, "rule11_bucket": "K1",
            "files": ["scale_shift.py"], "config_only": false}, "expect": {"/round": 3}},
  {"edit": {"file": "scale_shift.py", "replace": "def forward(x, w, b):\n    return mypkg.scale_shift(x, w, b)",
            "with": "def forward(x, w, b):\n    return x * w"}},
  {"edit": {"file": "scale_shift.py", "replace": "    return x.float() * w.float() + b.float()", "with": "    return x.float() * w.float()"}},
  {"tool": "rebuild_kernel", "args": {"campaign_dir": "${campaign_dir}"}},
  {"tool": "validate_round", "args": {"campaign_dir": "${campaign_dir}", "full": true}, "expect": {"/decision": "ROLLBACK"}}
]}
JSON
"$KOPT_BIN" demo --repo "$repo" --script "$E2E_TMP/script.json" >"$E2E_TMP/demo.out" 2>&1 ||
  { tail -40 "$E2E_TMP/demo.out"; fail "the campaign on kopt init's manifest did not run its script (a baseline, a control round, an attack refused)"; }
grep -q "Baseline recorded" "$E2E_TMP/demo.out" || { tail -40 "$E2E_TMP/demo.out"; fail "no baseline recorded"; }
grep -q "s1k | PASS" "$E2E_TMP/demo.out" || { tail -40 "$E2E_TMP/demo.out"; fail "the baseline table lacks s1k"; }
if ls "$repo"/.kopt/campaigns/*/quick_test_bench.py >/dev/null 2>&1; then fail "prepare_environment copied a second harness"; fi
# 5. The reference lives in the kernel's own file: a kernel change passes the hooks check (round 2),
# a rewritten reference is refused before anything is timed (round 3), and says why.
[[ $(grep -c "changed its harness hooks" "$E2E_TMP/demo.out") -ge 1 ]] || { tail -60 "$E2E_TMP/demo.out"; fail "the rewritten reference was not refused"; }
awk '/^## Control/,/^## Attack/' "$E2E_TMP/demo.out" | grep -q "changed its harness hooks" &&
  { tail -80 "$E2E_TMP/demo.out"; fail "the kernel-only change was refused for its hooks"; }
awk '/^## Control/,/^## Attack/' "$E2E_TMP/demo.out" | grep -q "Round 2 verdict" || { tail -80 "$E2E_TMP/demo.out"; fail "the control round has no verdict"; }
echo "PASS: kopt init took a plain repository with its own kernel to a recorded baseline; a rewritten reference was refused"
