#!/usr/bin/env bash
# The autotuned RMSNorm (kernels/triton/rmsnorm_tuned.py) on a GPU machine in one device call: the
# do_bench truth of its planted rounds, then scripted kopt campaigns (kopt demo --script, through
# `kopt serve` over MCP stdio) until the time is spent. From the repository root, with a kopt build
# carried (KOPT_BUILD: a folder with bin/kopt and lib/, as tools/gpu/make_bundle.sh makes
# build-gpu-bundle, or a plain build folder with ./kopt):
#
#   KOPT_BUILD=build-gpu-bundle bash tools/gpu/tuned_campaigns.sh SECONDS [SCRIPT[:SECONDS] ...]
#
# SECONDS is the whole call's time. Default scripts: tools/gpu/campaigns/triton_rmsnorm_tuned.json,
# then tools/gpu/campaigns/triton_rmsnorm_tuned_rounds.json. A SCRIPT:SECONDS gets at most that
# long; the last script gets what is left, less 45 s to write the tables and archive. TRUTH_S (default
# 300, 0 skips it) bounds the truth run, TRUTH_REPS (default 2) its repetitions.
# Where one command may run 10 minutes: the truth alone, then the four-round campaign, then as
# many counting rounds as fit, three calls:
#   python3 tools/gpu/tuned_truth.py --reps 2 --out $OUT/truth.jsonl >$OUT/truth.log 2>&1
#   TRUTH_S=0 bash tools/gpu/tuned_campaigns.sh 585 tools/gpu/campaigns/triton_rmsnorm_tuned.json
#   TRUTH_S=0 bash tools/gpu/tuned_campaigns.sh 585 tools/gpu/campaigns/triton_rmsnorm_tuned_rounds.json
# Each campaign runs in a fresh git repository holding a copy of what the campaign reads (the
# Triton kernels, the Python harness, require_all_pass.py, the manifest), with its own autotune
# cache (KOPT_AUTOTUNE_CACHE_DIR), so every campaign starts cold and all its processes share it.
# Writes under $OUT (flat, 8 files): env.txt, truth.log + truth.jsonl (tools/gpu/tuned_truth.py),
# campaigns.log (every transcript, each line stamped with its Unix time), rounds.txt (one line per
# round: tools/gpu/tuned_table.py), decisions.json (every round's decision.json, per campaign),
# reports.md (each campaign's report.md), records.tar.gz (each campaign's .kopt records).
set -u
total=${1:?usage: tuned_campaigns.sh SECONDS [SCRIPT[:SECONDS] ...]}
shift
deadline=$(( $(date +%s) + total ))
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:-$ROOT/out-tuned}
W=${TUNED_WORK:-/tmp/kopt-tuned}
B=$(cd "${KOPT_BUILD:-$ROOT/build-gpu-bundle}" 2>/dev/null && pwd) || { echo "KOPT_BUILD: no such folder" >&2; exit 2; }
KOPT=$B/bin/kopt
[ -x "$KOPT" ] || KOPT=$B/kopt
[ -x "$KOPT" ] || { echo "no kopt binary in $B (bin/kopt or kopt)" >&2; exit 2; }
[ -d "$B/lib" ] && export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
command -v git >/dev/null || export PATH=$PATH:$B/gitbin
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export GIT_AUTHOR_NAME=kopt-gpu GIT_AUTHOR_EMAIL=gpu@kopt.invalid GIT_COMMITTER_NAME=kopt-gpu GIT_COMMITTER_EMAIL=gpu@kopt.invalid
mkdir -p "$OUT" "$W"
[ $# -gt 0 ] || set -- tools/gpu/campaigns/triton_rmsnorm_tuned.json tools/gpu/campaigns/triton_rmsnorm_tuned_rounds.json

{
  date -u
  git -C "$ROOT" log -1 --format='%H %s' 2>/dev/null
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" 2>&1
  "$KOPT" --version 2>&1 | head -1
  echo "cpus $(nproc); budget ${total}s; scripts: $*"
} >"$OUT/env.txt"

# Lines of a transcript with their Unix time (validate_round's seconds come from these). stdbuf
# makes kopt's stdout line-buffered through the pipe, so a line is stamped when it is written.
stamp() { python3 -u -c 'import sys, time
for line in sys.stdin:
    sys.stdout.write("%.3f %s" % (time.time(), line))
    sys.stdout.flush()'; }
linebuf=()
command -v stdbuf >/dev/null && linebuf=(stdbuf -oL -eL)

truth_s=${TRUTH_S:-300}
if [ "$truth_s" -gt 0 ]; then
  start=$(date +%s)
  timeout -k 10 "$truth_s" python3 tools/gpu/tuned_truth.py --reps "${TRUTH_REPS:-2}" --cache "$W/truth-cache" \
    --out "$OUT/truth.jsonl" >"$OUT/truth.log" 2>&1
  echo "truth: exit $? after $(( $(date +%s) - start ))s" | tee -a "$OUT/env.txt"
fi

# The fresh repository a campaign runs in: what the manifest's commands and @file: arguments read.
make_repo() {
  local repo=$1
  rm -rf "$repo"
  mkdir -p "$repo/kernels" "$repo/harness" "$repo/tools/gpu" "$repo/manifests"
  cp -r kernels/triton "$repo/kernels/"
  cp -r harness/python "$repo/harness/"
  cp tools/gpu/require_all_pass.py "$repo/tools/gpu/"
  cp manifests/triton_rmsnorm_tuned_bf16.yaml "$repo/manifests/"
  find "$repo" -name __pycache__ -prune -exec rm -rf {} +
  printf '__pycache__/\n*.pyc\nbuild/\n' >"$repo/.gitignore"
  git -C "$repo" init -q -b main && git -C "$repo" add -A && git -C "$repo" commit -qm "kernels/triton and the harness, for a kopt campaign"
}

: >"$OUT/rounds.txt"
names=()
while [ $# -gt 0 ]; do
  spec=$1; shift
  script=${spec%%:*}
  left=$(( deadline - $(date +%s) - 45 ))
  if [ $# -eq 0 ] || [ "$script" = "$spec" ]; then budget=$left; else budget=${spec##*:}; fi
  [ "$budget" -gt "$left" ] && budget=$left
  name=$(basename "$script" .json)
  if [ "$budget" -lt 120 ]; then
    echo "=== $name: skipped, ${budget}s left ===" | tee -a "$OUT/campaigns.log"
    continue
  fi
  repo=$W/$name/repo
  make_repo "$repo" || { echo "=== $name: could not make $repo ===" | tee -a "$OUT/campaigns.log"; continue; }
  rm -rf "$W/$name/autotune"
  echo "=== $name (budget ${budget}s) ===" | tee -a "$OUT/campaigns.log"
  start=$(date +%s)
  KOPT_AUTOTUNE_CACHE_DIR=$W/$name/autotune TRITON_CACHE_DIR=$W/$name/triton-cache \
    timeout -k 30 "$budget" "${linebuf[@]}" "$KOPT" demo --script "$ROOT/$script" --repo "$repo" 2>&1 \
    | stamp >"$W/$name/transcript.log"
  rc=${PIPESTATUS[0]}
  cat "$W/$name/transcript.log" >>"$OUT/campaigns.log"
  echo "=== $name: exit $rc after $(( $(date +%s) - start ))s ===" | tee -a "$OUT/campaigns.log"
  camp=$(ls -d "$repo"/.kopt/campaigns/*/ 2>/dev/null | head -1)
  if [ -n "$camp" ]; then
    python3 tools/gpu/tuned_table.py --script "$script" --campaign "$camp" --kernel kernels/triton/rmsnorm_tuned.py \
      --transcript "$W/$name/transcript.log" --json "$W/$name/decisions.json" >>"$OUT/rounds.txt" 2>&1
    { echo "# $name"; cat "$camp/report.md" 2>/dev/null || echo "(no report.md)"; echo; } >>"$OUT/reports.md"
    names+=("$name")
  fi
  echo >>"$OUT/rounds.txt"
done

python3 - "$W" "${names[@]}" >"$OUT/decisions.json" <<'EOF'
import json, os, sys
w, names = sys.argv[1], sys.argv[2:]
out = {}
for n in names:
    try:
        out[n] = json.load(open(os.path.join(w, n, "decisions.json")))
    except (OSError, ValueError) as e:
        out[n] = {"error": str(e)}
json.dump(out, sys.stdout, indent=1)
EOF
(cd "$W" && tar czf "$OUT/records.tar.gz" --exclude='worktrees' --exclude='__pycache__' \
  $(for n in "${names[@]}"; do [ -d "$n/repo/.kopt" ] && echo "$n/repo/.kopt"; echo "$n/transcript.log"; done) 2>/dev/null)
grep -E '^===|!!' "$OUT/campaigns.log" | sed 's/^[0-9.]* //'
grep -E '^round|^#' "$OUT/rounds.txt"
tail -n 8 "$OUT/truth.log" 2>/dev/null
