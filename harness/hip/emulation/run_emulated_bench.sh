#!/usr/bin/env bash
# run_emulated_bench.sh BENCH SCHEMA LABELS: a tiny timed run of an emulated native bench, then
# checks what it wrote against the shared formats: the frozen header, one PASS row per label in
# the given order, a samples header and two series (forward, backward) per shape.
set -euo pipefail
bench=$1 schema=$2 labels=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bench" --summary-csv "$dir/b.csv" --samples "$dir/s.jsonl" --shapes "$labels" --seed 11 \
  --time-cap-s 0.05 --min-samples 3 --max-samples 5 --flush-mib 1
if [ "$schema" = gemm ]; then
  header='label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr'
else
  header='label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,Forward Time (ms),Backward Time (ms),max_abs_err'
fi
fail() { echo "run_emulated_bench: $*" >&2; cat "$dir/b.csv" >&2; exit 1; }
[ "$(head -1 "$dir/b.csv")" = "$header" ] || fail "header differs"
grep -q $'\r' "$dir/b.csv" && fail "CRLF in the CSV"
IFS=, read -ra want <<< "$labels"
mapfile -t rows < <(tail -n +2 "$dir/b.csv")
[ "${#rows[@]}" -eq "${#want[@]}" ] || fail "expected ${#want[@]} rows"
for i in "${!want[@]}"; do
  [[ "${rows[$i]}" == "${want[$i]},"* ]] || fail "row $i is not ${want[$i]}"
  col=6; [ "$schema" = gemm ] || col=5
  [ "$(cut -d, -f$col <<< "${rows[$i]}")" = PASS ] || fail "row $i is not PASS"
done
head -1 "$dir/s.jsonl" | grep -q '"kopt_samples":1,"harness":"hip_' || fail "samples header"
[ "$(tail -n +2 "$dir/s.jsonl" | wc -l)" -eq $(( 2 * ${#want[@]} )) ] || fail "expected two series per shape"
grep -q '"direction":"backward"' "$dir/s.jsonl" || fail "no backward series"
echo "run_emulated_bench: ok ($labels)"
