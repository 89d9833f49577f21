#!/usr/bin/env bash
# Sharded full validation on the CPU kernel with 2 fake GPU ids gives the same table as an
# unsharded run: the same header, the same rows in the same (manifest) order with the same shapes
# and correctness verdicts (timings differ run to run), and a samples file with the same header and
# the same (label, direction) sequence.
set -uo pipefail
. "$KOPT_SOURCE_DIR/tests/fixtures/exec/slurm_test_lib.sh"
find_probe
BENCH=${KOPT_BINARY_DIR:-/nonexistent}/kernels/cpu/cpu_gemm_bench
[ -x "$BENCH" ] || skip "cpu_gemm_bench not built (expected at $BENCH)"
W=$(mktemp -d /tmp/kopt-shard.XXXXXX)
trap 'rm -rf "$W"' EXIT

SHAPES=$("$BENCH" --list-shapes | awk '{print $1}' | tac | paste -sd, -)  # reversed: order must follow the list, not the harness
"$BENCH" --summary-csv "$W/single.csv" --samples "$W/single.jsonl" --shapes "$SHAPES" --seed 11 >"$W/single.log" 2>&1
check "the unsharded run writes its table" test -s "$W/single.csv"

out=$("$PROBE" shard --executor local --devices 0,1 --shapes "$SHAPES" --seed 11 --workdir "$W/shards" \
      --summary "$W/benchmark.csv" --samples "$W/samples.jsonl" --stdout "$W/sharded.log" --timeout-ms 300000 -- "$BENCH")
check "the sharded run succeeds" test "$(field "$out" outcome)/$(field "$out" exit_code)/$(field "$out" shard_error)" = exited/0/
check "two shards ran" test "$(field "$out" shard1_outcome)" = exited

fixed_columns() { cut -d, -f1-6 "$1"; }  # label,B,M,N,K,Check
check "same header line" test "$(head -1 "$W/benchmark.csv")" = "$(head -1 "$W/single.csv")"
check "same rows (shape and verdict) in the same order" test "$(fixed_columns "$W/benchmark.csv")" = "$(fixed_columns "$W/single.csv")"
check "same number of fields on every line" test "$(awk -F, '{print NF}' "$W/benchmark.csv" | sort -u)" = "$(awk -F, '{print NF}' "$W/single.csv" | sort -u)"
check "LF line ends, no CR" bash -c '! grep -q $'"'"'\r'"'"' "$1"' _ "$W/benchmark.csv"
check "rows follow the requested shape order" test "$(tail -n +2 "$W/benchmark.csv" | cut -d, -f1 | paste -sd, -)" = "$SHAPES"

seq_of() { sed -n 's/.*"label":"\([^"]*\)","direction":"\([a-z]*\)".*/\1 \2/p' "$1"; }
check "same samples header" test "$(head -1 "$W/samples.jsonl")" = "$(head -1 "$W/single.jsonl")"
check "same (label, direction) sequence in the samples" test "$(seq_of "$W/samples.jsonl")" = "$(seq_of "$W/single.jsonl")"
check "each shard ran on its own device id" bash -c 'grep -q "shard 0 on device 0" "$1" && grep -q "shard 1 on device 1" "$1"' _ "$W/sharded.log"
out=
finish
